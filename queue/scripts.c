#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/lease_set.h"
#include "queue/redis_cmd.h"
#include "queue/scripts.h"


/* A stage's waiting jobs (queue/keys.h): one list per harvest, the lane
 * RING:<harvest>, and RING = queue:<stage>, the ring of the harvests with
 * waiting jobs (or that had some at their last turn), rightmost next. A
 * fetch turns the ring, so that the jobs are taken round robin by harvest:
 * one harvest's flood never holds back another's job. Normal jobs join the
 * back of their lane, high, handed-back, reaped and retried ones its front;
 * a lane new to the ring is next in turn when it came to the front (a high
 * job also moves its harvest there), last otherwise. A lane found empty at
 * its turn (run dry by the pops, or emptied by other means) leaves the
 * ring then. A job in the ring itself (queued by a version before the
 * lanes: a harvest id never starts with '{') is taken when its turn comes,
 * so an upgrade loses none. */
#define LANES                                                                                \
  "local function lane_harvest(job)\n"                                                        \
  "  local ok, o = pcall(cjson.decode, job)\n"                                                \
  "  if ok and type(o) == 'table' and type(o.harvest) == 'string' then return o.harvest end\n" \
  "  return ''\n"                                                                              \
  "end\n"                                                                                      \
  "local function lane_push(ring, job, front, high, harvest)\n"                                \
  "  local h = harvest or lane_harvest(job)\n"                                                 \
  "  local lane = ring .. ':' .. h\n"                                                          \
  "  local n = redis.call(front and 'RPUSH' or 'LPUSH', lane, job)\n"                          \
  "  if n == 1 or high then\n"                                                                 \
  "    redis.call('LREM', ring, 0, h)\n"                                                       \
  "    redis.call(front and 'RPUSH' or 'LPUSH', ring, h)\n"                                    \
  "  end\n"                                                                                    \
  "end\n"                                                                                      \
  "local function lane_pop(ring)\n"                                                            \
  /* each turn returns a job or takes an empty lane out of the ring: it   \
   * ends without counting the ring first */                                                \
  "  while true do\n"                                                                          \
  "    local h = redis.call('RPOPLPUSH', ring, ring)\n"                                        \
  "    if not h then return false end\n"                                                       \
  /* h is at the ring's head now: LPOP takes it out, without a scan */                       \
  "    if string.sub(h, 1, 1) == '{' then\n"                                                   \
  "      redis.call('LPOP', ring)\n"                                                           \
  "      return h\n"                                                                           \
  "    end\n"                                                                                  \
  /* a lane its pop emptied stays in the ring until its next turn (a push  \
   * to it meanwhile finds it there): no count after every pop */                           \
  "    local job = redis.call('RPOP', ring .. ':' .. h)\n"                                     \
  "    if job then return job end\n"                                                           \
  "    redis.call('LPOP', ring)\n"                                                             \
  "  end\n"                                                                                    \
  "end\n"

/* KEYS: queue, queued set, stages set
 * ARGV: job JSON, seed ("" = no duplicate check), "high"|"normal", stage,
 *       the job's harvest (its lane)
 * Returns 1 queued, 0 suppressed (the seed already has a job of this stage). */
LwScript lw_script_enqueue = {
  LANES
  "if ARGV[2] ~= '' and redis.call('SADD', KEYS[2], ARGV[2]) == 0 then return 0 end\n"
  "lane_push(KEYS[1], ARGV[1], ARGV[3] == 'high', ARGV[3] == 'high', ARGV[5])\n"
  "redis.call('SADD', KEYS[3], ARGV[4])\n"
  "return 1\n",
  ""};

/* KEYS: worker heartbeat, inflight, then per stage: queue, delayed
 * ARGV: heartbeat TTL ms, "1" to move due retries first (the worker asks
 *       at most every 100 ms: it is the costly part of a fetch), then, when
 *       the workers in downloads are capped (workers/download_cap.h): the
 *       places' lease set, the worker's member, the limit, the lease ms and
 *       the KEYS index of the download stage's queue
 * Moves due retries of each stage back to its queue, then takes the next job
 * of the first stage that has one into the in-flight list and marks it on
 * the heartbeat (job, since, progress cleared: the ack folded with it
 * leaves them), setting the TTL when the fields were new; with none, the
 * heartbeat's job is cleared. With a cap, the download stage is asked
 * only with a place (kept, or taken: renewed either way), and the place is
 * given back when the job taken is not a download, or there is none: no
 * round trip of its own. Returns the job JSON or nil. */
LwScript lw_script_fetch = {
  LW_LUA_NOW_MS LANES LW_LUA_LEASE_TAKE
  "local cap, member, dl = ARGV[3] or '', ARGV[4], tonumber(ARGV[7] or '0')\n"
  "for i = 3, #KEYS, 2 do\n"
  "  if i ~= dl or cap == '' or lease_take(cap, member, ARGV[5], ARGV[6]) then\n"
  "    if ARGV[2] == '1' then\n"
  "      local due = redis.call('ZRANGEBYSCORE', KEYS[i + 1], '-inf', now, 'LIMIT', 0, 100)\n"
  "      for _, j in ipairs(due) do\n"
  "        redis.call('ZREM', KEYS[i + 1], j)\n"
  "        lane_push(KEYS[i], j, false, false)\n"
  "      end\n"
  "    end\n"
  "    local job = lane_pop(KEYS[i])\n"
  "    if job then\n"
  "      if cap ~= '' and i ~= dl then redis.call('ZREM', cap, member) end\n"
  "      redis.call('LPUSH', KEYS[2], job)\n"
  /* new fields (the worker was idle) or a heartbeat made anew: its TTL */
  "      if redis.call('HSET', KEYS[1], 'job', job, 'since', now, 'progress', '') > 0 then\n"
  "        redis.call('PEXPIRE', KEYS[1], ARGV[1])\n"
  "      end\n"
  "      return job\n"
  "    end\n"
  "  end\n"
  "end\n"
  "if cap ~= '' then redis.call('ZREM', cap, member) end\n"
  /* idle: no job on the heartbeat (a read first: an idle poll writes
   * nothing, so it runs on a Redis that refuses writes) */
  "if redis.call('HEXISTS', KEYS[1], 'job') == 1 then\n"
  "  redis.call('HDEL', KEYS[1], 'job', 'since', 'progress')\n"
  "end\n"
  "return false\n",
  ""};

/* The fan-in's finish of a file (queue/harvest.h), for the apply and reap
 * scripts: harvest record, expected, finished and failed sets, the file,
 * whether it failed, now. True when the follow-up job is due (once). */
#define FINISH_FILE                                                                          \
  "local function finish_file(hk, ek, fk, xk, file, failed, now)\n"                          \
  "  if redis.call('EXISTS', hk) == 0 then return false end\n"                               \
  "  if failed and redis.call('SADD', xk, file) == 1 then\n"                                 \
  "    redis.call('HINCRBY', hk, 'failed', 1)\n"                                             \
  "  end\n"                                                                                  \
  "  if redis.call('SADD', fk, file) == 1 and redis.call('SISMEMBER', ek, file) == 1 then\n" \
  "    redis.call('HINCRBY', hk, 'pending', -1)\n"                                           \
  "  end\n"                                                                                  \
  "  redis.call('HSET', hk, 'progress', now)\n"                                              \
  "  return (tonumber(redis.call('HGET', hk, 'pending')) or 0) <= 0 and\n"                   \
  "    redis.call('HGET', hk, 'status') == 'running' and\n"                                  \
  "    redis.call('HSETNX', hk, 'follow_up_queued', now) == 1\n"                             \
  "end\n"

/* The collection's index entry of a seed whose status changed, for the
 * status-moving scripts: counts key (PREFIXseeds), `updated`, hash. A
 * seed in the re-check index (PREFIXrechecks, named from the counts key as
 * the collection's index is) is found there by the collection: it is
 * indexed once (queue/gc_index.h). */
_Static_assert(sizeof(LW_KEY_SEED_COUNTS) == 6, "SEED_INDEX cuts the counts key's 5 letters");
#define SEED_INDEX                                                                           \
  "local function seed_index(counts, updated, hash)\n"                                       \
  "  if redis.call('ZSCORE', string.sub(counts, 1, -6) .. '" LW_KEY_RECHECKS "', hash) then\n" \
  "    return\n"                                                                             \
  "  end\n"                                                                                  \
  "  redis.call('ZADD', counts .. ':index', updated, hash)\n"                                \
  "end\n"

/* The one script every transition of the records runs through (queue/txn.h).
 * ARGV: fence list ("" = no fence), job JSON, number of core ops, then ops:
 *       name, number of arguments, arguments...
 * With a fence, nothing at all is applied unless the job is in that list
 * (the caller still holds it): returns {0, ""}. The core ops (the job's own
 * move: leaving the in-flight list, counters) then always apply; the result
 * ops are first checked (strict seed transitions against the machine,
 * guards) and applied all or none. Returns {1, ""} or {1, refusal}.
 * Ops:
 *   take    (no arguments) the job leaves the fence list; as the first
 *           core op it is the fence's check itself
 *   call    a Redis command
 *   hsetx   key field value: HSET when the key exists
 *   rested  seed key, index, score, member, the collection's seed index:
 *           ZADD member to the re-check index unless the seed has a
 *           parent (queue/recheck_index.h), and out of the collection's
 *           (the re-check index holds it for the collection: one entry)
 *   delay   zset, ms, member: ZADD member scored now + ms (Redis clock)
 *   status  seed key, counts key, status, now, hash, strict|soft, allowed...
 *           (the seed's `updated` also scores it in the collection's
 *           index, <counts key>:index, unless it is in the re-check
 *           index: queue/gc_index.h)
 *   guard   key, field, value, message[, "or-empty"]: refuses the results
 *           unless the hash's field has that value (a seed still belongs
 *           to the job's harvest, a harvest is still running), or with
 *           "or-empty" has none
 *   push    queue, queued set, stages set, job JSON, member ("" = no
 *           duplicate check), high|normal, stage, the job's harvest
 *   expect  record key, expected set, finished set, files...
 *   finish  record key, expected set, finished set, failed set, file,
 *           "1" failed | "0", then the 8 push arguments of the follow-up job,
 *           queued once when every expected file is finished
 * The fan-in (expect/finish) keeps `pending` = |expected \ finished| and
 * `failed` = |failed set| on the record, counted only when a set changes:
 * running it twice changes nothing. */
LwScript lw_script_apply = {
  LW_LUA_NOW_MS FINISH_FILE LANES SEED_INDEX
  "local fence, ncore = ARGV[1], tonumber(ARGV[3])\n"
  /* each op's name, first argument's index and count: no table per op */
  "local names, at, cnt, i = {}, {}, {}, 4\n"
  "while i <= #ARGV do\n"
  "  local k = #names + 1\n"
  "  names[k], at[k], cnt[k] = ARGV[i], i + 2, tonumber(ARGV[i + 1])\n"
  "  i = i + 2 + cnt[k]\n"
  "end\n"
  /* an op's arguments as a table, made once (the check and the run) */
  "local made = {}\n"
  "local function args(k)\n"
  "  made[k] = made[k] or {unpack(ARGV, at[k], at[k] + cnt[k] - 1)}\n"
  "  return made[k]\n"
  "end\n"
  /* a first op `take` is the fence itself: the job leaves the list, or was
   * not there (one command, not a check and then a removal) */
  "local first = 1\n"
  "if fence ~= '' and ncore >= 1 and names[1] == 'take' then\n"
  "  if redis.call('LREM', fence, -1, ARGV[2]) == 0 then return {0, ''} end\n"
  "  first = 2\n"
  "elseif fence ~= '' and not redis.call('LPOS', fence, ARGV[2]) then return {0, ''} end\n"
  "local function allowed(a, cur)\n"
  "  for j = 7, #a do if a[j] == cur then return true end end\n"
  "  return false\n"
  "end\n"
  "local sim, refused = {}, nil\n"
  "for k = ncore + 1, #names do\n"
  "  local name = names[k]\n"
  "  if name == 'status' then\n"
  "    local a = args(k)\n"
  "    if sim[a[1]] == nil then sim[a[1]] = redis.call('HGET', a[1], 'status') or '' end\n"
  "    local cur = sim[a[1]]\n"
  "    if allowed(a, cur) then sim[a[1]] = a[3]\n"
  "    elseif a[6] == 'strict' then\n"
  "      refused = 'LWSTATE seed ' .. a[5] .. ' is ' .. (cur == '' and 'not recorded' or cur) ..\n"
  "        ': it cannot become ' .. a[3]\n"
  "      break\n"
  "    end\n"
  "  elseif name == 'guard' then\n"
  "    local a = args(k)\n"
  "    local v = redis.call('HGET', a[1], a[2]) or ''\n"
  "    if v ~= a[3] and not (a[5] == 'or-empty' and v == '') then\n"
  "      refused = 'LWSTALE ' .. a[4] .. ' (' .. a[2] .. ' is ' .. v .. ', not ' .. a[3] .. ')'\n"
  "      break\n"
  "    end\n"
  "  end\n"
  "end\n"
  "local function push(a)\n"
  "  if a[5] ~= '' and redis.call('SADD', a[2], a[5]) == 0 then return end\n"
  "  lane_push(a[1], a[4], a[6] == 'high', a[6] == 'high', a[8])\n"
  "  redis.call('SADD', a[3], a[7])\n"
  "end\n"
  "local function run(name, a)\n"
  "  if name == 'take' then redis.call('LREM', fence, -1, ARGV[2])\n"
  "  elseif name == 'hsetx' then\n"
  "    if redis.call('EXISTS', a[1]) == 1 then redis.call('HSET', a[1], a[2], a[3]) end\n"
  "  elseif name == 'rested' then\n"
  "    if (redis.call('HGET', a[1], 'parent') or '') == '' then\n"
  "      redis.call('ZADD', a[2], a[3], a[4])\n"
  "      redis.call('ZREM', a[5], a[4])\n"
  "    end\n"
  "  elseif name == 'status' then\n"
  "    local cur = redis.call('HGET', a[1], 'status') or ''\n"
  "    if cur ~= a[3] and allowed(a, cur) then\n"
  "      redis.call('HSET', a[1], 'status', a[3], 'updated', a[4])\n"
  "      seed_index(a[2], a[4], a[5])\n"
  "      if cur ~= '' then redis.call('HINCRBY', a[2], cur, -1) end\n"
  "      redis.call('HINCRBY', a[2], a[3], 1)\n"
  "    end\n"
  "  elseif name == 'delay' then redis.call('ZADD', a[1], now + tonumber(a[2]), a[3])\n"
  "  elseif name == 'push' then push(a)\n"
  "  elseif name == 'expect' and redis.call('EXISTS', a[1]) == 1 then\n"
  "    for j = 4, #a do\n"
  "      if redis.call('SADD', a[2], a[j]) == 1 and redis.call('SISMEMBER', a[3], a[j]) == 0 then\n"
  "        redis.call('HINCRBY', a[1], 'pending', 1)\n"
  "      end\n"
  "    end\n"
  "    redis.call('HSET', a[1], 'progress', now)\n"
  "  elseif name == 'finish' then\n"
  "    if finish_file(a[1], a[2], a[3], a[4], a[5], a[6] == '1', now) then\n"
  "      push({unpack(a, 7, 14)})\n"
  "    end\n"
  "  end\n"
  "end\n"
  "for k = first, #names do\n"
  "  if k <= ncore or not refused then\n"
  "    if names[k] == 'call' then redis.call(unpack(ARGV, at[k], at[k] + cnt[k] - 1))\n"
  "    else run(names[k], args(k)) end\n"
  "  end\n"
  "end\n"
  "return {1, refused or ''}\n",
  ""};

/* KEYS: inflight, queue, worker heartbeat
 * ARGV: job JSON
 * Puts a job back at the front of its queue, unchanged. Returns 1 or 0. */
LwScript lw_script_handback = {
  LANES
  "if redis.call('LREM', KEYS[1], -1, ARGV[1]) == 0 then return 0 end\n"
  "lane_push(KEYS[2], ARGV[1], true, false)\n"
  "redis.call('HDEL', KEYS[3], 'job', 'since', 'progress')\n"
  "return 1\n",
  ""};

/* The duplicate-suppression member of a decoded job (lw_job_member). */
#define MEMBER                                                                             \
  "local function member(obj)\n"                                                           \
  "  local seed = type(obj.seed) == 'string' and obj.seed or ''\n"                         \
  "  local harvest = type(obj.harvest) == 'string' and obj.harvest or ''\n"                \
  "  if seed == '' or harvest == '' then return seed end\n"                                \
  "  return seed .. ' ' .. harvest\n"                                                      \
  "end\n"

/* KEYS: worker heartbeat, inflight, workers set
 * ARGV: worker id, queue key head, stats key head, dead key head,
 *       queued key head, max attempts, harvest key head, seed key head,
 *       seed counts key, the harvest's follow-up stage, stages set key,
 *       then the stages that work on files of a harvest
 * If the heartbeat is gone, gives each in-flight job back to the front of
 * its queue with "reaped" counted up; a job whose workers died max attempts
 * times (it may be what kills them) goes to dead instead, and a file job
 * is then finished as failed for its harvest. Returns the number of jobs
 * handled, or -1 when the worker is alive. */
LwScript lw_script_reap = {
  LW_LUA_NOW_MS MEMBER FINISH_FILE LANES SEED_INDEX
  "local function file_stage(stage)\n"
  "  for i = 12, #ARGV do if ARGV[i] == stage then return true end end\n"
  "  return false\n"
  "end\n"
  /* a file job that goes dead here is finished as failed, as lw_queue_fail
   * does: its seed (while still the job's harvest's) fails, and the last
   * file of the harvest queues the follow-up */
  "local function reap_file(obj)\n"
  "  local h, seed = obj.harvest, obj.seed\n"
  "  if type(h) ~= 'string' or h == '' or type(seed) ~= 'string' or seed == '' then return end\n"
  "  local sk = ARGV[8] .. seed\n"
  "  if redis.call('HGET', sk, 'harvest') ~= h then return end\n"
  "  local cur = redis.call('HGET', sk, 'status')\n"
  "  if cur == 'downloading' or cur == 'unarchiving' or cur == 'guessing' or cur == 'parsing' then\n"
  "    redis.call('HSET', sk, 'status', 'failed', 'updated', now, 'error', obj.error)\n"
  "    seed_index(ARGV[9], now, seed)\n"
  "    redis.call('HINCRBY', ARGV[9], cur, -1)\n"
  "    redis.call('HINCRBY', ARGV[9], 'failed', 1)\n"
  "  end\n"
  "  local hk = ARGV[7] .. h\n"
  "  if finish_file(hk, hk .. ':expected', hk .. ':finished', hk .. ':failed', seed, true, now) then\n"
  "    local follow = ARGV[10]\n"
  "    local job = cjson.encode({id = string.sub(redis.sha1hex(h .. now), 1, 16), stage = follow,\n"
  "                              seed = h, harvest = h, attempt = 0, queued = now})\n"
  "    if redis.call('SADD', ARGV[5] .. follow, h .. ' ' .. h) == 1 then\n"
  "      lane_push(ARGV[2] .. follow, job, false, false, h)\n"
  "      redis.call('SADD', ARGV[11], follow)\n"
  "    end\n"
  "  end\n"
  "end\n"
  "if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end\n"
  "local n = 0\n"
  "while true do\n"
  "  local job = redis.call('RPOP', KEYS[2])\n"
  "  if not job then break end\n"
  "  n = n + 1\n"
  "  local ok, obj = pcall(cjson.decode, job)\n"
  "  if ok and type(obj) == 'table' and type(obj.stage) == 'string' then\n"
  "    local stage = obj.stage\n"
  "    obj.reaped = (tonumber(obj.reaped) or 0) + 1\n"
  "    redis.call('HINCRBY', ARGV[3] .. stage, 'reaped', 1)\n"
  "    if obj.reaped >= tonumber(ARGV[6]) then\n"
  "      obj.error = 'its worker died ' .. obj.reaped .. ' times while running it'\n"
  "      obj.error_kind = 'reaped'\n"
  "      obj.failed = now\n"
  "      redis.call('LPUSH', ARGV[4] .. stage, cjson.encode(obj))\n"
  "      local m = member(obj)\n"
  "      if m ~= '' then redis.call('SREM', ARGV[5] .. stage, m) end\n"
  "      if file_stage(stage) then reap_file(obj) end\n"
  "    else\n"
  "      lane_push(ARGV[2] .. stage, cjson.encode(obj), true, false,\n"
  "                type(obj.harvest) == 'string' and obj.harvest or '')\n"
  "    end\n"
  "  else\n"
  "    redis.call('LPUSH', ARGV[4] .. 'unknown', job)\n"
  "  end\n"
  "end\n"
  "redis.call('SREM', KEYS[3], ARGV[1])\n"
  "return n\n",
  ""};

/* KEYS: seed, seed counts
 * ARGV: new status, now ms, seed hash, "strict"|"soft", allowed current
 *       statuses ("" = no record yet)...
 * Moves the seed to the new status if its current one is allowed, keeping
 * the per-status counts (and the collection's index, <counts key>:index,
 * unless the seed is in the re-check index: queue/gc_index.h). Strict refusal is an error reply "LWSTATE ...";
 * soft refusal returns false. Returns the old status ("" for new). */
LwScript lw_script_transition = {
  SEED_INDEX
  "local cur = redis.call('HGET', KEYS[1], 'status')\n"
  "if not cur then cur = '' end\n"
  "local ok = false\n"
  "for i = 5, #ARGV do if ARGV[i] == cur then ok = true break end end\n"
  "if not ok then\n"
  "  if ARGV[4] == 'soft' then return false end\n"
  "  return redis.error_reply('LWSTATE seed ' .. ARGV[3] .. ' is ' ..\n"
  "    (cur == '' and 'not recorded' or cur) .. ': it cannot become ' .. ARGV[1])\n"
  "end\n"
  "if cur ~= ARGV[1] then\n"
  "  redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated', ARGV[2])\n"
  "  seed_index(KEYS[2], ARGV[2], ARGV[3])\n"
  "  if cur ~= '' then redis.call('HINCRBY', KEYS[2], cur, -1) end\n"
  "  redis.call('HINCRBY', KEYS[2], ARGV[1], 1)\n"
  "end\n"
  "return cur\n",
  ""};

/* KEYS: dead, queue, queued set
 * ARGV: job id ("" = every job), harvest key head, provider key head,
 *       "1" when the stage works on files of a harvest
 * Moves dead jobs back to the front of their queue with attempt 0 (the
 * last error stays in the job for reference). A job whose seed has been
 * queued again meanwhile is just dropped. A retried job reopens its
 * harvest: a file job's file is no longer finished (nor failed), so the
 * harvest waits for it again and queues its import once more when it is
 * done; a harvest that ended failed meanwhile runs again, its provider
 * harvesting, while it is still the provider's latest. Returns the number
 * of jobs taken from the dead list. */
LwScript lw_script_retry_dead = {
  LW_LUA_NOW_MS MEMBER LANES
  "local function reopen(obj)\n"
  "  local h = obj.harvest\n"
  "  if type(h) ~= 'string' or h == '' then return end\n"
  "  local hk = ARGV[2] .. h\n"
  "  if redis.call('EXISTS', hk) == 0 then return end\n"
  "  local seed = obj.seed\n"
  "  if ARGV[4] == '1' and type(seed) == 'string' and seed ~= '' and\n"
  "     redis.call('SREM', hk .. ':finished', seed) == 1 then\n"
  "    if redis.call('SREM', hk .. ':failed', seed) == 1 then\n"
  "      redis.call('HINCRBY', hk, 'failed', -1)\n"
  "    end\n"
  "    if redis.call('SISMEMBER', hk .. ':expected', seed) == 1 then\n"
  "      redis.call('HINCRBY', hk, 'pending', 1)\n"
  "    end\n"
  "    redis.call('HDEL', hk, 'follow_up_queued')\n"
  "  end\n"
  "  local pk = ARGV[3] .. (redis.call('HGET', hk, 'provider') or '')\n"
  "  if redis.call('HGET', hk, 'status') == 'failed' and\n"
  "     redis.call('HGET', pk, 'harvest') == h then\n"
  "    redis.call('HSET', hk, 'status', 'running')\n"
  "    redis.call('HDEL', hk, 'finished', 'error')\n"
  "    redis.call('HSET', pk, 'state', 'harvesting')\n"
  "  end\n"
  "  redis.call('HSET', hk, 'progress', now)\n"
  "end\n"
  "local jobs = redis.call('LRANGE', KEYS[1], 0, -1)\n"
  "local n = 0\n"
  "for _, job in ipairs(jobs) do\n"
  "  local ok, obj = pcall(cjson.decode, job)\n"
  "  if ok and type(obj) == 'table' and (ARGV[1] == '' or obj.id == ARGV[1]) then\n"
  "    redis.call('LREM', KEYS[1], 1, job)\n"
  "    obj.attempt = 0\n"
  "    obj.reaped = nil\n"
  "    local m = member(obj)\n"
  "    if m == '' or redis.call('SADD', KEYS[3], m) == 1 then\n"
  "      lane_push(KEYS[2], cjson.encode(obj), true, false,\n"
  "                type(obj.harvest) == 'string' and obj.harvest or '')\n"
  "      reopen(obj)\n"
  "    end\n"
  "    n = n + 1\n"
  "  end\n"
  "end\n"
  "return n\n",
  ""};

/* KEYS: delayed, queue
 * Moves every due job from delayed to its queue. Returns how many. */
LwScript lw_script_promote = {
  LW_LUA_NOW_MS LANES "local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)\n"
         "for _, j in ipairs(due) do\n"
         "  redis.call('ZREM', KEYS[1], j)\n"
         "  lane_push(KEYS[2], j, false, false)\n"
         "end\n"
         "return #due\n",
  ""};

/* apply's source as the body of a Lua function of its own ARGV, followed
 * by a tail that uses apply_argv, the ARGV after the tail's own (ARGV[1]
 * says how many those are: tail_argv). */
static const char apply_head[] =
  "local nt = tonumber(ARGV[1])\n"
  "local tail_argv, apply_argv = {}, {}\n"
  "for i = 1, nt do tail_argv[i] = ARGV[1 + i] end\n"
  "for i = 2 + nt, #ARGV do apply_argv[i - 1 - nt] = ARGV[i] end\n"
  "local function apply(KEYS, ARGV)\n";

/* The parts joined, into out->source (kept for the process's life). */
static void compose(LwScript *out, const char *const *parts, size_t n)
{
  size_t size = 1;
  for (size_t i = 0; i < n; ++i) {
    size += strlen(parts[i]);
  }
  char *source = malloc(size);
  if (!source) {
    fprintf(stderr, "out of memory\n");
    abort();
  }
  size_t len = 0;
  for (size_t i = 0; i < n; ++i) {
    len += (size_t)snprintf(source + len, size - len, "%s", parts[i]);
  }
  out->source = source;
}

/* A script's source without its reading of the Redis clock: a script made
 * of several reads it once, at its top, for all (a command fewer). */
static const char *without_now(const char *source)
{
  size_t n = strlen(LW_LUA_NOW_MS);
  return strncmp(source, LW_LUA_NOW_MS, n) ? source : source + n;
}

/* The clock, apply's source, then the tail (its parts joined), into
 * out->source. */
static void compose_with_apply(LwScript *out, const char *const *tail, size_t n)
{
  const char *parts[9] = {LW_LUA_NOW_MS, apply_head, without_now(lw_script_apply.source),
                          "\nend\n"};
  if (n > sizeof(parts) / sizeof(*parts) - 4) {
    abort(); /* a tail of more parts: make room above */
  }
  memcpy(parts + 4, tail, n * sizeof(*tail));
  compose(out, parts, 4 + n);
}

/* fetch's source as the body of a Lua function of its own KEYS and ARGV,
 * called with fetch_keys: the script's KEYS but the last (the paused set). */
#define FETCH_FUNCTION_HEAD                                                                  \
  "local fetch_keys = {}\n"                                                                  \
  "for i = 1, #KEYS - 1 do fetch_keys[i] = KEYS[i] end\n"                                    \
  "local function fetch(KEYS, ARGV)\n"

/* The ack with the fetch of the next job folded in: one EVALSHA, so that a
 * job costs one round trip. It is made of apply's and fetch's own sources,
 * each run as a function of its own KEYS and ARGV: either script changes
 * without this one being rewritten.
 * KEYS: fetch's KEYS, then the paused set
 * ARGV: the number N of fetch's ARGV, fetch's N ARGV, then apply's ARGV
 * The apply comes first and the fetch runs whatever its fate (fenced out
 * or refused), as two calls in a row would. Returns apply's two replies,
 * fetch's (the job or false) and the paused stages, read in the same call:
 * the worker hands back a job of a stage paused meanwhile. */
static LwScript ack_fetch;
static pthread_once_t ack_fetch_once = PTHREAD_ONCE_INIT;

static void ack_fetch_build(void)
{
  const char *const tail[] = {
    FETCH_FUNCTION_HEAD,
    without_now(lw_script_fetch.source),
    "\nend\n"
    "local done = apply({}, apply_argv)\n"
    "local job = fetch(fetch_keys, tail_argv) or false\n"
    "return {done[1], done[2], job, redis.call('SMEMBERS', KEYS[#KEYS])}\n"};
  compose_with_apply(&ack_fetch, tail, sizeof(tail) / sizeof(*tail));
}

LwScript *lw_script_ack_fetch(void)
{
  pthread_once(&ack_fetch_once, ack_fetch_build);
  return &ack_fetch;
}

/* The fetch with the paused stages read in the same call, as the ack's
 * fetch reads them: a fetch of its own costs one round trip too.
 * KEYS: fetch's KEYS, then the paused set; ARGV: fetch's ARGV
 * Returns fetch's reply (the job or false) and the paused stages. */
static LwScript fetch_paused;
static pthread_once_t fetch_paused_once = PTHREAD_ONCE_INIT;

static void fetch_paused_build(void)
{
  const char *const parts[] = {
    FETCH_FUNCTION_HEAD, lw_script_fetch.source,
    "\nend\n"
    "return {fetch(fetch_keys, ARGV) or false, redis.call('SMEMBERS', KEYS[#KEYS])}\n"};
  compose(&fetch_paused, parts, sizeof(parts) / sizeof(*parts));
}

LwScript *lw_script_fetch_paused(void)
{
  pthread_once(&fetch_paused_once, fetch_paused_build);
  return &fetch_paused;
}

/* apply, then the record of KEYS[1] as it is after it (a stage's move to
 * its working status and the seed it works on, in one round trip).
 * KEYS: the record; ARGV: "0", then apply's ARGV
 * Returns apply's two replies and the record's HGETALL. */
static LwScript apply_read;
static pthread_once_t apply_read_once = PTHREAD_ONCE_INIT;

static void apply_read_build(void)
{
  const char *const tail[] = {"local done = apply({}, apply_argv)\n"
                              "return {done[1], done[2], redis.call('HGETALL', KEYS[1])}\n"};
  compose_with_apply(&apply_read, tail, 1);
}

LwScript *lw_script_apply_read(void)
{
  pthread_once(&apply_read_once, apply_read_build);
  return &apply_read;
}

/* KEYS: queue (a stage's ring of lanes)
 * Returns the number of jobs waiting in all its lanes. */
LwScript lw_script_depth = {
  "local n, seen = 0, {}\n"
  "for _, h in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do\n"
  "  if string.sub(h, 1, 1) == '{' then n = n + 1\n" /* a job of before the lanes */
  "  elseif not seen[h] then\n"
  "    seen[h] = true\n"
  "    n = n + redis.call('LLEN', KEYS[1] .. ':' .. h)\n"
  "  end\n"
  "end\n"
  "return n\n",
  ""};

/* KEYS: queue (a stage's ring of lanes)
 * ARGV: harvest id, or none for every lane
 * Takes the waiting jobs of one harvest's lane (or of all of them) out of
 * the queue. Returns them. */
LwScript lw_script_drain = {
  "local out, lanes = {}, ARGV[1] and {ARGV[1]} or redis.call('LRANGE', KEYS[1], 0, -1)\n"
  "for _, h in ipairs(lanes) do\n"
  "  if not ARGV[1] and string.sub(h, 1, 1) == '{' then out[#out + 1] = h end\n"
  "  local lane = KEYS[1] .. ':' .. h\n"
  "  for _, j in ipairs(redis.call('LRANGE', lane, 0, -1)) do out[#out + 1] = j end\n"
  "  redis.call('DEL', lane)\n"
  "  redis.call('LREM', KEYS[1], 0, h)\n"
  "end\n"
  "return out\n",
  ""};

LwStatus lw_scripts_load_all(redisContext *c, LwError *err)
{
  LwScript *all[] = {&lw_script_enqueue,    &lw_script_fetch,  &lw_script_apply,
                     &lw_script_handback,   &lw_script_reap,   &lw_script_transition,
                     &lw_script_retry_dead, &lw_script_promote,  &lw_script_depth,
                     &lw_script_drain};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
    LW_TRY(lw_script_load(c, all[i], err));
  }
  LW_TRY(lw_script_load(c, lw_script_ack_fetch(), err));
  LW_TRY(lw_script_load(c, lw_script_fetch_paused(), err));
  return lw_script_load(c, lw_script_apply_read(), err);
}
