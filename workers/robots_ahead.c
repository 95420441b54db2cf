/*
 * robots.txt fetched beside the transfers: a worker running many downloads
 * in one thread (workers/download_many.h) must not stop them all while it
 * reads a new host's robots.txt (a request like any other: it may take the
 * connect timeout). The download asks for it here and waits, "not yet",
 * until it is cached (politeness/politeness.h); a thread of its own with
 * its own Redis connection fetches and caches it, one per origin at a
 * time. robots.txt is read once per origin and --robots-ttl, so these
 * threads are few.
 */
#include "workers/robots_ahead.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "politeness/politeness.h"
#include "queue/redis.h"

#define AHEAD_MAX 64 /* origins fetched at once; more wait their turn */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char pending[AHEAD_MAX][1200];
static int npending;

typedef struct {
  const LwConfig *cfg;
  char url[4096];
  char origin[1200];
} Ahead;

/* Takes origin's place in the pending list: false when it is there already
 * or the list is full. */
static bool claim(const char *origin)
{
  pthread_mutex_lock(&lock);
  bool ok = npending < AHEAD_MAX;
  for (int i = 0; ok && i < npending; ++i) {
    ok = strcmp(pending[i], origin) != 0;
  }
  if (ok) {
    snprintf(pending[npending++], sizeof(pending[0]), "%s", origin);
  }
  pthread_mutex_unlock(&lock);
  return ok;
}

static void unclaim(const char *origin)
{
  pthread_mutex_lock(&lock);
  for (int i = 0; i < npending; ++i) {
    if (!strcmp(pending[i], origin)) {
      memmove(pending[i], pending[npending - 1], sizeof(pending[0]));
      --npending;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
}

static void *ahead_main(void *arg)
{
  Ahead *a = arg;
  LwRecords *c = NULL;
  LwNetGuard *guard = NULL;
  LwError err;
  if (lw_redis_connect(a->cfg->redis_url, &c, &err) == LW_OK &&
      lw_netguard_new(a->cfg->allow_net, &guard, &err) == LW_OK &&
      lw_robots_fetch(c, a->cfg, guard, a->url, &err) > LW_NOTHING) {
    lw_debug("msg=\"robots.txt ahead failed\" origin=%s error=\"%s\"", a->origin,
             err.message);
  }
  lw_netguard_free(guard);
  lw_records_close(c);
  unclaim(a->origin);
  free(a);
  return NULL;
}

void lw_robots_ahead(const LwConfig *cfg, const char *url)
{
  /* asked every poll of a waiting transfer: nothing allocated unless the
   * origin is new */
  char origin[sizeof(((Ahead *)0)->origin)];
  if (!lw_url_origin(url, origin, sizeof(origin)) || !claim(origin)) {
    return;
  }
  Ahead *a = calloc(1, sizeof(*a));
  if (!a) {
    unclaim(origin);
    return;
  }
  snprintf(a->origin, sizeof(a->origin), "%s", origin);
  a->cfg = cfg;
  snprintf(a->url, sizeof(a->url), "%s", url);
  pthread_attr_t attr;
  pthread_t thread;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  /* signals go to the main thread, which owns the stop flag */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int rc = pthread_create(&thread, &attr, ahead_main, a);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    unclaim(a->origin);
    free(a);
  }
}
