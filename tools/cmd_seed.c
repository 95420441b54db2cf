/* lodwash seed show URI|HASH [--json], lodwash seed add URI. */
#include <jansson.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/base.h"
#include "net/net.h"
#include "queue/seed.h"
#include "tools/commands.h"

static int compare_keys(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void print_seed(const char *hash, json_t *seed)
{
  printf("%-16s %s\n", "hash", hash);
  const char *first[] = {"status", "uri", "error"};
  for (size_t i = 0; i < 3; ++i) {
    const char *v = json_string_value(json_object_get(seed, first[i]));
    if (v) {
      printf("%-16s %s\n", first[i], v);
    }
  }
  size_t n = json_object_size(seed);
  const char **keys = calloc(n ? n : 1, sizeof(char *));
  size_t k = 0;
  const char *key;
  json_t *value;
  json_object_foreach(seed, key, value) {
    if (strcmp(key, "status") && strcmp(key, "uri") && strcmp(key, "error")) {
      keys[k++] = key;
    }
  }
  qsort(keys, k, sizeof(char *), compare_keys);
  for (size_t i = 0; i < k; ++i) {
    printf("%-16s %s\n", keys[i], json_string_value(json_object_get(seed, keys[i])));
  }
  free(keys);
}

static int seed_show(LwTool *tool, int argc, char **argv)
{
  const char *what = NULL;
  bool json = false;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return lw_tool_usage_error("seed show: unknown option '%s'", argv[i]);
    } else if (what) {
      return lw_tool_usage_error("seed show: give one URI or hash");
    } else {
      what = argv[i];
    }
  }
  if (!what) {
    return lw_tool_usage_error("seed show: give a URI or a hash");
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  char hash[LW_HASH_HEX_LEN + 1];
  json_t *seed = NULL;
  LwError err;
  LwStatus st = lw_seed_find(c, tool->config->prefix, what, hash, &seed, &err);
  if (st > LW_NOTHING) {
    return lw_tool_fail("seed show: %s", err.message);
  }
  if (st == LW_NOTHING) {
    return lw_tool_not_found("no seed %s (%s)", hash, what);
  }
  static const char *const times[] = {"added", "processed", "updated", "failed", NULL};
  lw_tool_times_readable(seed, times);
  if (json) {
    json_object_set_new(seed, "hash", json_string(hash));
    lw_tool_print_json(seed);
  } else {
    print_seed(hash, seed);
  }
  json_decref(seed);
  return LW_EXIT_OK;
}

/* The host of an absolute URI, without userinfo, port or IPv6 brackets,
 * and its port (the scheme's when none is given). */
static bool uri_host(const char *uri, char *host, size_t size, char port[8])
{
  LwUriParts parts;
  lw_uri_split(uri, &parts);
  if (!parts.authority.ptr) {
    return false;
  }
  const char *a = parts.authority.ptr, *end = a + parts.authority.len;
  const char *at = memchr(a, '@', parts.authority.len);
  a = at ? at + 1 : a;
  const char *stop = end;
  if (*a == '[') {
    ++a;
    stop = memchr(a, ']', (size_t)(end - a));
  } else {
    stop = memchr(a, ':', (size_t)(end - a));
  }
  stop = stop ? stop : end;
  if (stop == a || (size_t)(stop - a) >= size) {
    return false;
  }
  snprintf(host, size, "%.*s", (int)(stop - a), a);
  const char *colon = memchr(stop, ':', (size_t)(end - stop));
  bool https = parts.scheme.len == 5;
  snprintf(port, 8, "%.*s", colon ? (int)(end - colon - 1) : 3,
           colon   ? colon + 1
           : https ? "443"
                   : "80");
  return true;
}

/* Refuses what the download stage would refuse (net/net.h), so the mistake
 * shows now and not as a dead job later: another scheme than http(s), a
 * host that is or resolves to a loopback, private or other special address
 * not in --allow-net. A name that does not resolve now is let through: DNS
 * may be back by the time the download runs. */
static LwStatus download_would_refuse(const LwConfig *cfg, const char *uri, LwError *err)
{
  LW_TRY(lw_netguard_check_scheme(uri, err));
  char host[256], port[8];
  if (!uri_host(uri, host, sizeof(host), port)) {
    return lw_error_set(err, LW_ERR_REFUSED, "no host in %s", uri);
  }
  LwNetGuard *guard = NULL;
  LW_TRY(lw_netguard_new(cfg->allow_net, &guard, err));
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *found = NULL;
  LwStatus st = LW_OK;
  if (getaddrinfo(host, *port ? port : NULL, &hints, &found) == 0) {
    for (struct addrinfo *ai = found; ai && st == LW_OK; ai = ai->ai_next) {
      st = lw_netguard_check_sockaddr(guard, ai->ai_addr, err);
    }
    freeaddrinfo(found);
  }
  lw_netguard_free(guard);
  return st;
}

static int seed_add(LwTool *tool, int argc, char **argv)
{
  if (argc != 3 || (argv[2][0] == '-' && argv[2][1])) {
    return lw_tool_usage_error("seed add: give exactly one URI");
  }
  LwError err;
  if (lw_uri_is_absolute(argv[2]) && download_would_refuse(tool->config, argv[2], &err)) {
    return lw_tool_usage_error("seed add: the download would refuse it: %s", err.message);
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  char hash[LW_HASH_HEX_LEN + 1];
  bool queued = false;
  LwStatus st = lw_seed_add(c, tool->config->prefix, argv[2], NULL, NULL, hash, &queued,
                            &err);
  if (st > LW_NOTHING) {
    return lw_tool_fail("seed add: %s", err.message);
  }
  if (!lw_uri_is_absolute(argv[2])) {
    printf("%s %s (relative URI: recorded, never downloaded)\n", hash,
           st == LW_OK ? "added" : "already recorded");
  } else {
    printf("%s %s%s\n", hash, st == LW_OK ? "added" : "already recorded",
           queued ? ", download queued" : ", download already queued");
  }
  return LW_EXIT_OK;
}

int lw_cmd_seed(LwTool *tool, int argc, char **argv)
{
  if (argc < 2) {
    return lw_tool_usage_error("seed: expected 'show' or 'add'");
  }
  if (!strcmp(argv[1], "show")) {
    return seed_show(tool, argc, argv);
  }
  if (!strcmp(argv[1], "add")) {
    return seed_add(tool, argc, argv);
  }
  return lw_tool_usage_error("seed: unknown sub-command '%s' (show, add)", argv[1]);
}
