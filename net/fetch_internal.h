/*
 * Inside the net library only: one fetch's state (net/http_fetch.c), hop by
 * hop, for the multi driver (net/fetch_multi.c) that runs many of them in
 * one thread. lw_fetch is these steps in a row:
 *
 *   open; loop { hop_begin (LW_NOTHING: ask again after hop_wait_ms);
 *                curl_easy_perform; hop_end (again: the next hop) }; close
 */
#ifndef LW_NET_FETCH_INTERNAL_H
#define LW_NET_FETCH_INTERNAL_H

#include <curl/curl.h>
#include <stdbool.h>

#include "net/net.h"

typedef struct Fetch Fetch;

/* Zeroed state (free with free() after lw_fetch_state_close). */
Fetch *lw_fetch_state_new(void);

/* The easy handle of the fetch's hops. */
CURL *lw_fetch_state_curl(Fetch *f);

/* Everything up to the first hop (the body file, the easy handle). Not
 * LW_OK: call lw_fetch_state_close with that status. */
LwStatus lw_fetch_state_open(Fetch *f, const char *url, const LwFetchOptions *opts,
                             LwFetchResult *res, LwError *err);

/* After the hops ended with st: the body's fate and the result; returns the
 * fetch's status. Releases what f holds, not f. */
LwStatus lw_fetch_state_close(Fetch *f, LwStatus st, LwError *err);

/* Before a hop: LW_OK (the easy handle is set up for it), LW_NOTHING (not
 * yet: ask again after lw_fetch_hop_wait_ms) or the fetch's error. */
LwStatus lw_fetch_hop_begin(Fetch *f, LwError *err);

/* A hop's transfer ended with rc: *again for a redirect to follow, else the
 * fetch's status. */
LwStatus lw_fetch_hop_end(Fetch *f, CURLcode rc, bool *again, LwError *err);

/* The wait a "not yet" asked for, within bounds; clears err. */
long long lw_fetch_hop_wait_ms(LwError *err);

#endif
