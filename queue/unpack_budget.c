#include "queue/unpack_budget.h"

#include <stdio.h>
#include <stdlib.h>

#include "queue/redis_cmd.h"

/* Sums the fields of KEYS[1] ("<bytes> <files>[ <in>]") other than
 * ARGV[1]: ob, of, and oi, the downloaded bytes of the harvest's first
 * archives (depth 0), which the expansion ratio applies to. */
#define SUM_OTHERS                                                                         \
  "local ob, of, oi = 0, 0, 0\n"                                                           \
  "local all = redis.call('HGETALL', KEYS[1])\n"                                           \
  "for i = 1, #all, 2 do\n"                                                                \
  "  if all[i] ~= ARGV[1] then\n"                                                          \
  "    local b, f, n = string.match(all[i + 1], '^(%d+) (%d+) ?(%d*)$')\n"                 \
  "    ob = ob + (tonumber(b) or 0)\n"                                                     \
  "    of = of + (tonumber(f) or 0)\n"                                                     \
  "    oi = oi + (tonumber(n) or 0)\n"                                                     \
  "  end\n"                                                                                \
  "end\n"

/* The bytes every other harvest's archives hold (KEYS[2], the set of the
 * harvests with a budget, KEYS[1] among them): ab. A harvest whose budget
 * is gone (retention) leaves the set here. */
#define SUM_ALL_OTHERS                                                                     \
  "local ab = 0\n"                                                                         \
  "for _, h in ipairs(tonumber(ARGV[11]) > 0 and redis.call('SMEMBERS', KEYS[2]) or {}) do\n" \
  "  local hk = ARGV[12] .. h\n"                                                           \
  "  if hk ~= KEYS[1] then\n"                                                              \
  "    local vals = redis.call('HVALS', hk)\n"                                             \
  "    if #vals == 0 then redis.call('SREM', KEYS[2], h) end\n"                            \
  "    for _, v in ipairs(vals) do ab = ab + (tonumber(string.match(v, '^(%d+)')) or 0) end\n" \
  "  end\n"                                                                                \
  "end\n"

/* KEYS: unpacked:<harvest>, unpacked (the set of harvests with a budget)
 * ARGV: seed, want bytes, want files, need bytes, need files, max bytes,
 *       max files (<= 0: no cap), the seed's downloaded bytes (0 below
 *       depth 0), max ratio (<= 0: none), ratio floor, the bytes all
 *       harvests' archives may hold (<= 0: no cap), the unpacked: key head,
 *       the harvest id
 * The bytes' cap is the smaller of max bytes and the chain's: max ratio
 * times the downloaded bytes of the harvest's archives (at least the
 * floor). Grants the want of each when it fits beside the others, else the
 * need and half of the room above it: archives unpacked at the same time
 * (siblings) each keep room, where one greedy step would take all of a
 * small chain's cap and fail the others. Sets the seed's field to the
 * grant when it covers the need. Returns {1|0, granted bytes, granted
 * files, others' bytes, others' files, the chain's cap (-1: none)}. */
static LwScript reserve_script = {
  SUM_OTHERS SUM_ALL_OTHERS
             "local function grant(want, need, max, others)\n"
             "  if max <= 0 then return want end\n"
             "  local room = math.max(0, max - others)\n"
             "  if room >= want or room <= need then return math.min(want, room) end\n"
             "  return need + math.floor((room - need) / 2)\n"
             "end\n"
             "local own_in, ratio = tonumber(ARGV[8]), tonumber(ARGV[9])\n"
             "local chain = -1\n"
             "local maxb = tonumber(ARGV[6])\n"
             "if ratio > 0 then\n"
             "  chain = math.max(ratio * (oi + own_in), tonumber(ARGV[10]))\n"
             "  if maxb <= 0 or chain < maxb then maxb = chain end\n"
             "end\n"
             "local gb = grant(tonumber(ARGV[2]), tonumber(ARGV[4]), maxb, ob)\n"
             "local allmax = tonumber(ARGV[11])\n"
             "local global = allmax > 0 and gb >= tonumber(ARGV[4]) and\n"
             "  ab + ob + tonumber(ARGV[4]) > allmax\n"
             "if allmax > 0 then gb = math.max(0, math.min(gb, allmax - ab - ob)) end\n"
             "local gf = grant(tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[7]), of)\n"
             "local ok = gb >= tonumber(ARGV[4]) and gf >= tonumber(ARGV[5])\n"
             "if ok then\n"
             "  local v = string.format('%d %d', gb, gf)\n"
             "  if own_in > 0 then v = v .. string.format(' %d', own_in) end\n"
             "  redis.call('HSET', KEYS[1], ARGV[1], v)\n"
             "  redis.call('SADD', KEYS[2], ARGV[13])\n"
             "end\n"
             "return {ok and 1 or 0, string.format('%d', gb), string.format('%d', gf),\n"
             "        string.format('%d', ob), string.format('%d', of),\n"
             "        string.format('%d', chain), string.format('%d', oi + own_in),\n"
             "        global and 1 or 0, string.format('%d', ab + ob)}\n",
  ""};

/* KEYS: unpacked:<harvest>  ARGV: "" (no field excluded)
 * Returns {bytes, files} of every archive. */
static LwScript used_script = {
  SUM_OTHERS "return {string.format('%d', ob), string.format('%d', of)}\n", ""};

static long long element_ll(const redisReply *r, size_t i)
{
  return i < r->elements && r->element[i]->type == REDIS_REPLY_STRING
           ? atoll(r->element[i]->str)
           : 0;
}

LwStatus lw_unpack_budget_reserve(void *data, uint64_t need_bytes, uint64_t need_files,
                                  uint64_t *bytes, uint64_t *files, LwError *err)
{
  const LwUnpackBudgetRef *ref = data;
  LwKey key = lw_key(ref->prefix, LW_KEY_UNPACKED, ref->harvest);
  char want_b[32], want_f[32], need_b[32], need_f[32], max_b[32], max_f[32];
  snprintf(want_b, sizeof(want_b), "%llu", (unsigned long long)*bytes);
  snprintf(want_f, sizeof(want_f), "%llu", (unsigned long long)*files);
  snprintf(need_b, sizeof(need_b), "%llu", (unsigned long long)need_bytes);
  snprintf(need_f, sizeof(need_f), "%llu", (unsigned long long)need_files);
  snprintf(max_b, sizeof(max_b), "%lld", ref->max_bytes);
  snprintf(max_f, sizeof(max_f), "%lld", ref->max_files);
  char in_b[32], ratio[32], floor_b[32], all_b[32];
  snprintf(in_b, sizeof(in_b), "%lld", ref->in_bytes);
  snprintf(ratio, sizeof(ratio), "%lld", ref->max_ratio);
  snprintf(floor_b, sizeof(floor_b), "%lld", ref->ratio_floor);
  snprintf(all_b, sizeof(all_b), "%lld", ref->max_all_bytes);
  LwKey all = lw_key(ref->prefix, LW_KEY_UNPACKED_ALL, NULL);
  LwKey head = lw_key(ref->prefix, LW_KEY_UNPACKED, "");
  const char *argv[] = {key.s,  all.s,   ref->seed, want_b, want_f, need_b,
                        need_f, max_b,   max_f,     in_b,   ratio,  floor_b,
                        all_b,  head.s,  ref->harvest};
  redisReply *r = lw_script_run(ref->redis, &reserve_script, 2, 15, argv, NULL, err);
  if (!r) {
    return err->status;
  }
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 9) {
    freeReplyObject(r);
    return lw_error_set(err, LW_ERR_REDIS, "unexpected reply to the budget script");
  }
  bool ok = r->element[0]->type == REDIS_REPLY_INTEGER && r->element[0]->integer == 1;
  *bytes = (uint64_t)element_ll(r, 1);
  *files = (uint64_t)element_ll(r, 2);
  long long others_b = element_ll(r, 3), others_f = element_ll(r, 4);
  long long chain = element_ll(r, 5), downloaded = element_ll(r, 6);
  bool global = r->element[7]->type == REDIS_REPLY_INTEGER && r->element[7]->integer == 1;
  long long all_held = element_ll(r, 8);
  freeReplyObject(r);
  if (ok) {
    return LW_OK;
  }
  if (global) {
    /* Not this harvest's doing: retried later, when retention or other
     * harvests' failures have given room back. */
    return lw_error_set(
      err, LW_ERR_IO,
      "unpack budget of all harvests full: this archive needs %llu bytes, the archives "
      "of all harvests hold %lld of the %lld allowed (--unpacked-max-bytes); retried later",
      (unsigned long long)need_bytes, all_held, ref->max_all_bytes);
  }
  if (*bytes < need_bytes && chain >= 0 &&
      (ref->max_bytes <= 0 || chain < ref->max_bytes)) {
    return lw_error_set(
      err, LW_ERR_LIMIT,
      "harvest expansion ratio exceeded: this archive needs %llu bytes, the harvest's "
      "other archives hold %lld of the %lld allowed, %lld times the %lld bytes of its "
      "archives downloaded (--archive-max-ratio): a nested compression bomb?",
      (unsigned long long)need_bytes, others_b, chain, ref->max_ratio, downloaded);
  }
  if (*bytes < need_bytes) {
    return lw_error_set(
      err, LW_ERR_LIMIT,
      "harvest budget exceeded: this archive needs %llu bytes, the harvest's "
      "other archives hold %lld of its %lld (--harvest-max-bytes)",
      (unsigned long long)need_bytes, others_b, ref->max_bytes);
  }
  return lw_error_set(
    err, LW_ERR_LIMIT,
    "harvest budget exceeded: this archive needs %llu files, the harvest's "
    "other archives hold %lld of its %lld (--harvest-max-files)",
    (unsigned long long)need_files, others_f, ref->max_files);
}

void lw_txn_unpack_budget_settle(LwTxn *txn, const char *harvest, const char *seed,
                                 uint64_t bytes, uint64_t files, uint64_t in_bytes)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_UNPACKED, harvest);
  char value[96];
  int n = snprintf(value, sizeof(value), "%llu %llu", (unsigned long long)bytes,
                   (unsigned long long)files);
  if (in_bytes > 0) {
    snprintf(value + n, sizeof(value) - (size_t)n, " %llu", (unsigned long long)in_bytes);
  }
  lw_txn_hset(txn, key.s, seed, value);
  /* the set of budgets (the reservation added it; a collection may have
   * removed the budget since) */
  LwKey all = lw_key(lw_txn_prefix(txn), LW_KEY_UNPACKED_ALL, NULL);
  lw_txn_command(txn, 3, (const char *[]){"SADD", all.s, harvest}, NULL);
}

LwStatus lw_unpack_budget_release(const LwUnpackBudgetRef *ref, LwError *err)
{
  redisReply *r = lw_redis_cmd(ref->redis, err, "HDEL",
                               lw_key(ref->prefix, LW_KEY_UNPACKED, ref->harvest).s,
                               ref->seed, NULL);
  if (!r) {
    return err->status;
  }
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_unpack_budget_used(redisContext *c, const char *prefix, const char *harvest,
                               long long *bytes, long long *files, LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_UNPACKED, harvest);
  const char *argv[] = {key.s, ""};
  redisReply *r = lw_script_run(c, &used_script, 1, 2, argv, NULL, err);
  if (!r) {
    return err->status;
  }
  *bytes = r->type == REDIS_REPLY_ARRAY ? element_ll(r, 0) : 0;
  *files = r->type == REDIS_REPLY_ARRAY ? element_ll(r, 1) : 0;
  freeReplyObject(r);
  return LW_OK;
}
