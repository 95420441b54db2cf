#include "scheduler/void_fetch.h"

#include <stdio.h>
#include <string.h>

#include "net/net.h"
#include "scheduler/void.h"
#include "politeness/politeness.h"

/* The fetch goes on while *stop (when given) stays false. */
static bool keep_going(void *user, uint64_t bytes, uint64_t total)
{
  (void)bytes;
  (void)total;
  return !atomic_load((const atomic_bool *)user);
}

LwStatus lw_void_fetch(const char *url, const LwConfig *cfg, long timeout_ms,
                       const char *etag, const char *last_modified, char **body,
                       size_t *len, LwVoidFetchInfo *info, LwError *err)
{
  return lw_void_fetch_until(url, cfg, timeout_ms, etag, last_modified, NULL, body, len,
                             info, err);
}

typedef struct {
  const LwVoidFetchHooks *hooks;
  const LwConfig *cfg;
  const LwNetGuard *guard;
} Politeness;

static bool not_stopped(void *user)
{
  const atomic_bool *stop = user;
  return !stop || !atomic_load(stop);
}

/* Before each request (redirects included): the host's robots.txt and pace. */
static LwStatus polite_hop(void *user, const char *url, LwError *err)
{
  const Politeness *p = user;
  return lw_host_policy_check(p->hooks->redis, p->cfg, p->guard, url, not_stopped,
                              (void *)p->hooks->stop, err);
}

LwStatus lw_void_fetch_until(const char *url, const LwConfig *cfg, long timeout_ms,
                             const char *etag, const char *last_modified,
                             const LwVoidFetchHooks *hooks, char **body, size_t *len,
                             LwVoidFetchInfo *info, LwError *err)
{
  *body = NULL;
  *len = 0;
  memset(info, 0, sizeof(*info));
  LwNetGuard *guard = NULL;
  LW_TRY(lw_netguard_new(cfg && cfg->allow_net ? cfg->allow_net : "", &guard, err));
  LwFetchOptions o;
  memset(&o, 0, sizeof(o));
  o.data_dir = cfg ? cfg->data_dir : NULL;
  o.guard = guard;
  o.connect_timeout_ms = 10000;
  o.timeout_ms = timeout_ms > 0 ? timeout_ms : 30000;
  o.max_redirects = 5;
  o.contact = cfg && cfg->contact && *cfg->contact ? cfg->contact : NULL;
  o.accept = hooks && hooks->accept
               ? hooks->accept
               : "text/turtle, application/rdf+xml;q=0.9, application/n-triples;q=0.8, "
                 "*/*;q=0.1";
  o.etag = etag && *etag ? etag : NULL;
  o.last_modified = last_modified && *last_modified ? last_modified : NULL;
  if (hooks && hooks->stop) {
    o.progress = keep_going;
    o.progress_user = (void *)hooks->stop;
  }
  Politeness polite = {hooks, cfg, guard};
  if (hooks && hooks->before_hop) {
    o.before_hop = hooks->before_hop;
    o.before_hop_user = hooks->before_hop_user;
  } else if (hooks && hooks->redis && cfg) {
    o.before_hop = polite_hop;
    o.before_hop_user = &polite;
  }
  LwFetchResult r;
  memset(&r, 0, sizeof(r));
  LwStatus st = lw_fetch_small(url, &o, LW_VOID_MAX_BYTES, body, len, &r, err);
  info->status = r.status;
  info->not_modified = st == LW_NOTHING;
  snprintf(info->etag, sizeof(info->etag), "%s", r.etag);
  snprintf(info->last_modified, sizeof(info->last_modified), "%s", r.last_modified);
  snprintf(info->content_type, sizeof(info->content_type), "%s", r.content_type);
  snprintf(info->final_url, sizeof(info->final_url), "%s", r.final_url ? r.final_url : url);
  lw_fetch_result_clear(&r);
  lw_netguard_free(guard);
  return st;
}
