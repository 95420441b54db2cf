/*
 * Many fetches at once in one thread (LwFetchMulti, net/net.h), with
 * libcurl's multi interface: the same fetch state as lw_fetch's
 * (net/fetch_internal.h), hop by hop. A hop starts when its time has come
 * (a before_hop that says "not yet" is asked again later and holds no
 * other transfer), runs in the multi handle, and ends in hop_end: then the
 * next hop, or the end. Every callback (the address guard on the socket,
 * headers, body, caps, progress) is the easy handle's own, so each
 * transfer keeps every rule of lw_fetch.
 */
#include "net/net.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "net/fetch_internal.h"

typedef enum { XFER_WAITING, XFER_RUNNING, XFER_DONE } XferState;

typedef struct Xfer {
  Fetch *f;
  XferState state;
  long long wake_ms; /* monotonic: ask before_hop again then */
  LwError *err;
  LwStatus status; /* once XFER_DONE */
  void *user;
  struct Xfer *next;
} Xfer;

struct LwFetchMulti {
  CURLM *multi;
  Xfer *list;
  size_t count;
};

static void xfer_free(Xfer *x)
{
  free(x->f);
  free(x);
}

static long long mono_ms(void)
{
  return (long long)(lw_monotonic_seconds() * 1000);
}

LwFetchMulti *lw_fetch_multi_new(void)
{
  lw_fetch_global_init();
  LwFetchMulti *m = calloc(1, sizeof(*m));
  if (m && !(m->multi = curl_multi_init())) {
    free(m);
    return NULL;
  }
  return m;
}

LwStatus lw_fetch_multi_add(LwFetchMulti *m, const char *url, const LwFetchOptions *opts,
                            LwFetchResult *result, LwError *err, void *user)
{
  Xfer *x = calloc(1, sizeof(*x));
  if (x && !(x->f = lw_fetch_state_new())) {
    xfer_free(x);
    x = NULL;
  }
  if (!x) {
    memset(result, 0, sizeof(*result));
    result->retry_after = -1;
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus st = lw_fetch_state_open(x->f, url, opts, result, err);
  if (st != LW_OK) {
    st = lw_fetch_state_close(x->f, st, err);
    xfer_free(x);
    return st;
  }
  curl_easy_setopt(lw_fetch_state_curl(x->f), CURLOPT_PRIVATE, x);
  x->err = err;
  x->user = user;
  x->state = XFER_WAITING;
  x->next = m->list;
  m->list = x;
  m->count++;
  return LW_OK;
}

size_t lw_fetch_multi_count(const LwFetchMulti *m)
{
  return m ? m->count : 0;
}

static void xfer_end(Xfer *x, LwStatus st)
{
  x->status = lw_fetch_state_close(x->f, st, x->err);
  x->state = XFER_DONE;
}

/* Starts the hops whose time has come; *wake: the next time one is due. */
static void start_due(LwFetchMulti *m, long long now, long long *wake)
{
  for (Xfer *x = m->list; x; x = x->next) {
    if (x->state != XFER_WAITING) {
      continue;
    }
    if (x->wake_ms > now) {
      *wake = x->wake_ms < *wake ? x->wake_ms : *wake;
      continue;
    }
    LwStatus st = lw_fetch_hop_begin(x->f, x->err);
    if (st == LW_NOTHING) {
      x->wake_ms = now + lw_fetch_hop_wait_ms(x->err);
      *wake = x->wake_ms < *wake ? x->wake_ms : *wake;
    } else if (st != LW_OK) {
      xfer_end(x, st);
    } else if (curl_multi_add_handle(m->multi, lw_fetch_state_curl(x->f)) != CURLM_OK) {
      xfer_end(x, lw_error_set(x->err, LW_ERR_NOMEM, "cannot start a transfer"));
    } else {
      x->state = XFER_RUNNING;
    }
  }
}

/* Hops libcurl finished: the next hop waits for its turn, or the fetch
 * ends. Returns how many fetches ended. */
static int collect_ended(LwFetchMulti *m)
{
  int ended = 0;
  int left = 0;
  CURLMsg *msg;
  while ((msg = curl_multi_info_read(m->multi, &left)) != NULL) {
    if (msg->msg != CURLMSG_DONE) {
      continue;
    }
    CURL *easy = msg->easy_handle;
    CURLcode rc = msg->data.result; /* msg is gone after the removal */
    Xfer *x = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&x);
    curl_multi_remove_handle(m->multi, easy);
    bool again = false;
    LwStatus st = lw_fetch_hop_end(x->f, rc, &again, x->err);
    if (again) {
      x->state = XFER_WAITING;
      x->wake_ms = 0;
    } else {
      xfer_end(x, st);
      ++ended;
    }
  }
  return ended;
}

static bool any_done(const LwFetchMulti *m)
{
  for (const Xfer *x = m->list; x; x = x->next) {
    if (x->state == XFER_DONE) {
      return true;
    }
  }
  return false;
}

LwStatus lw_fetch_multi_run(LwFetchMulti *m, long max_wait_ms, LwError *err)
{
  long long now = mono_ms();
  long long wake = now + (max_wait_ms > 0 ? max_wait_ms : 0);
  start_due(m, now, &wake);
  int running = 0;
  CURLMcode mc = curl_multi_perform(m->multi, &running);
  if (mc == CURLM_OK && collect_ended(m) == 0 && !any_done(m)) {
    long long timeout = wake - mono_ms();
    mc = curl_multi_poll(m->multi, NULL, 0, timeout > 0 ? (int)timeout : 0, NULL);
    if (mc == CURLM_OK) {
      mc = curl_multi_perform(m->multi, &running);
    }
    if (mc == CURLM_OK) {
      collect_ended(m);
    }
  }
  if (mc != CURLM_OK) {
    return lw_error_set(err, LW_ERR_NET, "libcurl: %s", curl_multi_strerror(mc));
  }
  return LW_OK;
}

void *lw_fetch_multi_done(LwFetchMulti *m, LwStatus *status)
{
  for (Xfer **p = &m->list; *p; p = &(*p)->next) {
    Xfer *x = *p;
    if (x->state == XFER_DONE) {
      *p = x->next;
      m->count--;
      *status = x->status;
      void *user = x->user;
      xfer_free(x);
      return user;
    }
  }
  return NULL;
}

void lw_fetch_multi_stop(LwFetchMulti *m)
{
  for (Xfer *x = m->list; x; x = x->next) {
    if (x->state == XFER_RUNNING) {
      curl_multi_remove_handle(m->multi, lw_fetch_state_curl(x->f));
    }
    if (x->state != XFER_DONE) {
      xfer_end(x, lw_error_set(x->err, LW_ERR_NET, "stopped: the transfers were ended"));
    }
  }
}

void lw_fetch_multi_free(LwFetchMulti *m)
{
  if (!m) {
    return;
  }
  lw_fetch_multi_stop(m);
  while (m->list) {
    Xfer *x = m->list;
    m->list = x->next;
    xfer_free(x);
  }
  curl_multi_cleanup(m->multi);
  free(m);
}
