#include "queue/redis.h"

#include "queue/redis_cmd.h"
#include "queue/scripts.h"

#include <ctype.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies [s, s+len) into out, decoding %XX; false if it does not fit. */
static bool copy_decoded(const char *s, size_t len, char *out, size_t size)
{
  size_t n = 0;
  for (size_t i = 0; i < len; ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < len && isxdigit((unsigned char)s[i + 1]) &&
        isxdigit((unsigned char)s[i + 2])) {
      char hex[3] = {s[i + 1], s[i + 2], 0};
      c = (char)strtol(hex, NULL, 16);
      i += 2;
    }
    if (n + 1 >= size) {
      return false;
    }
    out[n++] = c;
  }
  out[n] = '\0';
  return true;
}

static bool parse_int(const char *s, size_t len, long max, int *out)
{
  if (len == 0 || len > 9) {
    return false;
  }
  long v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (!isdigit((unsigned char)s[i])) {
      return false;
    }
    v = v * 10 + (s[i] - '0');
  }
  if (v > max) {
    return false;
  }
  *out = (int)v;
  return true;
}

/* The URL as an error may show it: nothing before its last '@' (however
 * malformed, the password never), and only the redis:// it should start
 * with when it does not. */
static const char *shown_url(const char *url, char *out, size_t size)
{
  const char *at = url ? strrchr(url, '@') : NULL;
  const char *scheme = !url                              ? NULL
                       : !strncmp(url, "redis://", 8)   ? "redis://"
                       : !strncmp(url, "unix://", 7)    ? "unix://"
                                                        : NULL;
  if (!scheme) {
    snprintf(out, size, "%s", at ? "(not shown: it holds an '@')" : url ? url : "");
  } else {
    snprintf(out, size, "%s%s", scheme, at ? at + 1 : url + strlen(scheme));
  }
  return out;
}

static LwStatus parse_url(const char *url, LwRedisUrl *out, LwError *err);

LwStatus lw_redis_url_parse(const char *url, LwRedisUrl *out, LwError *err)
{
  LwError e;
  lw_error_clear(&e);
  LwStatus st = parse_url(url, out, &e);
  if (st != LW_OK) {
    char shown[512];
    lw_error_set(err, st, "bad Redis URL '%s': %s", shown_url(url, shown, sizeof(shown)),
                 e.message);
    memset(out->password, 0, sizeof(out->password));
  }
  return st;
}

/* The user info of an authority that starts at p, up to its last '@'
 * before end, into out; p moved past it. False when it is too long. */
static bool parse_user_info(const char **p, const char *end, LwRedisUrl *out)
{
  const char *at = NULL;
  for (const char *q = *p; q < end; ++q) {
    if (*q == '@') {
      at = q; /* the last '@' ends the user info */
    }
  }
  if (!at) {
    return true;
  }
  const char *colon = memchr(*p, ':', (size_t)(at - *p));
  bool ok;
  if (colon) {
    ok = copy_decoded(*p, (size_t)(colon - *p), out->user, sizeof(out->user)) &&
         copy_decoded(colon + 1, (size_t)(at - colon - 1), out->password,
                      sizeof(out->password));
  } else {
    /* redis://secret@host: a bare user info is the password */
    ok = copy_decoded(*p, (size_t)(at - *p), out->password, sizeof(out->password));
  }
  *p = at + 1;
  return ok;
}

/* unix://[[user]:password@]/path[?db=N], past its scheme at p. */
static LwStatus parse_unix_url(const char *p, LwRedisUrl *out, LwError *err)
{
  const char *slash = strchr(p, '/');
  if (!slash) {
    return lw_error_set(err, LW_ERR_USAGE, "expected unix://[[user]:password@]/path[?db=N]");
  }
  if (!parse_user_info(&p, slash, out)) {
    return lw_error_set(err, LW_ERR_USAGE, "user info too long");
  }
  if (p != slash) {
    return lw_error_set(err, LW_ERR_USAGE, "the socket's path must be absolute");
  }
  size_t len = strcspn(p, "?#");
  if (!copy_decoded(p, len, out->socket, sizeof(out->socket))) {
    return lw_error_set(err, LW_ERR_USAGE, "socket path too long");
  }
  const char *query = p + len;
  if (*query == '?') {
    size_t qlen = strcspn(query + 1, "#");
    if (qlen < 4 || strncmp(query + 1, "db=", 3) != 0 ||
        !parse_int(query + 4, qlen - 3, 100000, &out->db)) {
      return lw_error_set(err, LW_ERR_USAGE, "expected ?db=N after the socket's path");
    }
  }
  return LW_OK;
}

/* Parses url into out; the message of err says what is wrong, without the URL. */
static LwStatus parse_url(const char *url, LwRedisUrl *out, LwError *err)
{
  memset(out, 0, sizeof(*out));
  out->port = 6379;
  if (url && !strncmp(url, "unix://", 7)) {
    return parse_unix_url(url + 7, out, err);
  }
  if (!url || strncmp(url, "redis://", 8) != 0) {
    return lw_error_set(err, LW_ERR_USAGE,
                        "expected redis://[[user]:password@]host[:port][/db] or "
                        "unix://[[user]:password@]/path[?db=N]");
  }
  const char *p = url + 8;
  const char *end = p + strcspn(p, "/?#");
  if (!parse_user_info(&p, end, out)) {
    return lw_error_set(err, LW_ERR_USAGE, "user info too long");
  }
  const char *host_end;
  const char *port_start = NULL;
  if (*p == '[') { /* IPv6 literal */
    const char *close = memchr(p, ']', (size_t)(end - p));
    if (!close) {
      return lw_error_set(err, LW_ERR_USAGE, "unclosed '['");
    }
    if (!copy_decoded(p + 1, (size_t)(close - p - 1), out->host, sizeof(out->host))) {
      return lw_error_set(err, LW_ERR_USAGE, "host too long");
    }
    host_end = close + 1;
    if (host_end < end && *host_end == ':') {
      port_start = host_end + 1;
    } else if (host_end != end) {
      return lw_error_set(err, LW_ERR_USAGE, "junk after the host");
    }
  } else {
    const char *colon = memchr(p, ':', (size_t)(end - p));
    host_end = colon ? colon : end;
    if (!copy_decoded(p, (size_t)(host_end - p), out->host, sizeof(out->host))) {
      return lw_error_set(err, LW_ERR_USAGE, "host too long");
    }
    port_start = colon ? colon + 1 : NULL;
  }
  if (!out->host[0]) {
    snprintf(out->host, sizeof(out->host), "127.0.0.1");
  }
  if (port_start && !parse_int(port_start, (size_t)(end - port_start), 65535, &out->port)) {
    return lw_error_set(err, LW_ERR_USAGE, "bad port");
  }
  if (*end == '/' && end[1]) {
    const char *db = end + 1;
    size_t len = strcspn(db, "?#");
    if (len && !parse_int(db, len, 100000, &out->db)) {
      return lw_error_set(err, LW_ERR_USAGE, "bad database number");
    }
  }
  return LW_OK;
}

LwStatus lw_redis_reply_status(const redisReply *reply, LwError *err)
{
  if (reply->type != REDIS_REPLY_ERROR) {
    return LW_OK;
  }
  if (!strncmp(reply->str, "LWSTATE ", 8)) {
    return lw_error_set(err, LW_ERR_STATE, "%s", reply->str + 8);
  }
  return lw_error_set(err, LW_ERR_REDIS, "Redis: %s", reply->str);
}

/* The reply as callers get it: NULL with err set for a lost connection
 * (no reply) or an error reply (freed). */
static redisReply *checked_reply(redisContext *c, redisReply *reply, LwError *err)
{
  if (!reply) {
    lw_error_set(err, LW_ERR_REDIS, "Redis connection lost: %s",
                 c->errstr[0] ? c->errstr : "no reply");
    return NULL;
  }
  if (lw_redis_reply_status(reply, err) != LW_OK) {
    freeReplyObject(reply);
    return NULL;
  }
  return reply;
}

redisReply *lw_redis_argv(redisContext *c, int argc, const char **argv, const size_t *lens,
                          LwError *err)
{
  if (!c || c->err) {
    lw_error_set(err, LW_ERR_REDIS, "Redis connection lost%s%s", c ? ": " : "",
                 c ? c->errstr : "");
    return NULL;
  }
  redisReply *reply = redisCommandArgv(c, argc, argv, lens);
  return checked_reply(c, reply, err);
}

redisReply *lw_redis_members(redisContext *c, const char *key, LwError *err)
{
  redisReply *reply = lw_redis_cmd(c, err, "SMEMBERS", key, NULL);
  if (reply && reply->type != REDIS_REPLY_ARRAY) {
    freeReplyObject(reply);
    lw_error_set(err, LW_ERR_REDIS, "%s is not a set", key);
    return NULL;
  }
  return reply;
}

LwStatus lw_redis_cursor_walk(redisContext *c, const char **argv, int argc, int at,
                              LwCursorPageFn fn, void *arg, LwError *err)
{
  char cursor[32] = "0";
  do {
    argv[at] = cursor;
    redisReply *r = lw_redis_argv(c, argc, argv, NULL, err);
    if (!r) {
      return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
        r->element[0]->type != REDIS_REPLY_STRING ||
        r->element[1]->type != REDIS_REPLY_ARRAY) {
      freeReplyObject(r);
      return lw_error_set(err, LW_ERR_REDIS, "unexpected reply to %s", argv[0]);
    }
    snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
    LwStatus st = fn(arg, r->element[1], err);
    freeReplyObject(r);
    LW_TRY(st);
  } while (strcmp(cursor, "0") != 0);
  return LW_OK;
}

redisReply *lw_redis_cmd(redisContext *c, LwError *err, const char *arg0, ...)
{
  const char *argv[64];
  int argc = 0;
  va_list args;
  va_start(args, arg0);
  for (const char *a = arg0; a && argc < 64; a = va_arg(args, const char *)) {
    argv[argc++] = a;
  }
  va_end(args);
  return lw_redis_argv(c, argc, argv, NULL, err);
}

LwStatus lw_redis_connect(const char *url, redisContext **out, LwError *err)
{
  *out = NULL;
  LwRedisUrl u;
  LW_TRY(lw_redis_url_parse(url, &u, err));
  struct timeval connect_tv = {2, 0};
  char where[sizeof(u.host) + 16];
  redisContext *c;
  if (u.socket[0]) {
    snprintf(where, sizeof(where), "%s", u.socket);
    c = redisConnectUnixWithTimeout(u.socket, connect_tv);
  } else {
    snprintf(where, sizeof(where), "%s:%d", u.host, u.port);
    c = redisConnectWithTimeout(u.host, u.port, connect_tv);
  }
  if (!c || c->err) {
    lw_error_set(err, LW_ERR_REDIS, "cannot connect to Redis at %s: %s", where,
                 c ? c->errstr : "out of memory");
    redisFree(c);
    return LW_ERR_REDIS;
  }
  struct timeval command_tv = {30, 0};
  redisSetTimeout(c, command_tv);
  if (!u.socket[0]) {
    redisEnableKeepAlive(c); /* a TCP peer may vanish without a word */
  }
  LwError sub;
  redisReply *reply = NULL;
  if (u.password[0]) {
    reply = u.user[0] ? lw_redis_cmd(c, &sub, "AUTH", u.user, u.password, NULL)
                      : lw_redis_cmd(c, &sub, "AUTH", u.password, NULL);
    if (!reply) {
      redisFree(c);
      return lw_error_set(err, LW_ERR_REDIS, "cannot log in to Redis at %s: %s", where,
                          sub.message);
    }
    freeReplyObject(reply);
  }
  if (u.db) {
    char db[16];
    snprintf(db, sizeof(db), "%d", u.db);
    reply = lw_redis_cmd(c, &sub, "SELECT", db, NULL);
    if (!reply) {
      redisFree(c);
      return lw_error_set(err, LW_ERR_REDIS, "cannot select Redis database %d: %s", u.db,
                          sub.message);
    }
    freeReplyObject(reply);
  }
  /* The queue's scripts run by SHA; loading them now saves the NOSCRIPT
   * round trip of the first call (which would then be sent with its body:
   * a NOSCRIPT reply means nothing ran). */
  if (lw_scripts_load_all(c, &sub) != LW_OK) {
    redisFree(c);
    return lw_error_set(err, LW_ERR_REDIS, "cannot load scripts into Redis: %s",
                        sub.message);
  }
  *out = c;
  return LW_OK;
}

bool lw_records_usable(const LwRecords *r)
{
  return r && !r->err;
}

LwStatus lw_records_ensure(const char *url, LwRecords **r, LwError *err)
{
  if (lw_records_usable(*r)) {
    return LW_OK;
  }
  lw_records_close(*r);
  *r = NULL;
  return lw_redis_connect(url, r, err);
}

void lw_records_close(LwRecords *r)
{
  redisFree(r); /* hiredis: NULL is a no-op */
}

const char *lw_script_sha(LwScript *s)
{
  if (!s->sha[0]) {
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA1((const unsigned char *)s->source, strlen(s->source), digest);
    char hex[41];
    for (int i = 0; i < SHA_DIGEST_LENGTH; ++i) {
      snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    }
    memcpy(s->sha, hex, sizeof(hex));
  }
  return s->sha;
}

bool lw_reply_is_noscript(const redisReply *reply)
{
  return reply && reply->type == REDIS_REPLY_ERROR && !strncmp(reply->str, "NOSCRIPT", 8);
}

redisReply *lw_script_run(redisContext *c, LwScript *s, int nkeys, int argc,
                          const char **argv, const size_t *lens, LwError *err)
{
  enum { MAX_ARGS = 256 };
  if (argc + 3 > MAX_ARGS) {
    lw_error_set(err, LW_ERR_INTERNAL, "too many script arguments");
    return NULL;
  }
  const char *full[MAX_ARGS];
  size_t full_lens[MAX_ARGS];
  char numkeys[16];
  snprintf(numkeys, sizeof(numkeys), "%d", nkeys);
  full[0] = "EVALSHA";
  full[1] = lw_script_sha(s);
  full[2] = numkeys;
  for (int i = 0; i < 3; ++i) {
    full_lens[i] = strlen(full[i]);
  }
  for (int i = 0; i < argc; ++i) {
    full[3 + i] = argv[i];
    full_lens[3 + i] = lens ? lens[i] : strlen(argv[i]);
  }
  if (!c || c->err) {
    lw_error_set(err, LW_ERR_REDIS, "Redis connection lost%s%s", c ? ": " : "",
                 c ? c->errstr : "");
    return NULL;
  }
  redisReply *reply = redisCommandArgv(c, argc + 3, full, full_lens);
  if (lw_reply_is_noscript(reply)) {
    freeReplyObject(reply);
    full[0] = "EVAL";
    full[1] = s->source;
    full_lens[0] = 4;
    full_lens[1] = strlen(s->source);
    reply = redisCommandArgv(c, argc + 3, full, full_lens);
  }
  return checked_reply(c, reply, err);
}

LwStatus lw_script_run_yes(redisContext *c, LwScript *s, int nkeys, int argc,
                           const char **argv, bool *yes, LwError *err)
{
  *yes = false;
  redisReply *r = lw_script_run(c, s, nkeys, argc, argv, NULL, err);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  *yes = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_script_load(redisContext *c, LwScript *s, LwError *err)
{
  redisReply *reply = lw_redis_cmd(c, err, "SCRIPT", "LOAD", s->source, NULL);
  if (!reply) {
    return err ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(reply);
  return LW_OK;
}

bool lw_redis_refused_write(const LwError *err)
{
  const char *const refusals[] = {"OOM command not allowed", "READONLY ", "MISCONF ",
                                  "NOREPLICAS "};
  for (size_t i = 0; err && i < sizeof(refusals) / sizeof(*refusals); ++i) {
    if (strstr(err->message, refusals[i])) {
      return true;
    }
  }
  return false;
}

LwStatus lw_redis_write_probe(LwRecords *c, const char *prefix, LwError *err)
{
  char key[512];
  snprintf(key, sizeof(key), "%swritable", prefix);
  const char *argv[] = {"SET", key, "1", "PX", "60000"};
  redisReply *r = lw_redis_argv(c, 5, argv, NULL, err);
  if (!r) {
    return err->status;
  }
  freeReplyObject(r);
  return LW_OK;
}
