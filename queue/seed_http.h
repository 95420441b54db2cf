/*
 * A seed's `http` field: the hops of its last download as the record keeps
 * them at rest (docs/retention.md, "Redis memory per seed at rest").
 *
 * lw_fetch (net/net.h) records each hop whole: its headers, status, URI,
 * HTTP version and time. A seed keeps of each hop its status and, when it
 * is not the seed's own URI (a redirect's target), the URI asked:
 *
 *   [{"status":200}]                                   one hop, no redirect
 *   [{"status":301},{"status":200,"uri":"https://…"}]  a redirect
 *
 * The headers that a reader needs are fields of their own, written by the
 * download beside it: content_type, etag, last_modified (conditional GET),
 * retry_after; the download's time is `timestamp`. Records written before
 * (lodwash up to issue 27) keep every hop whole; the readers below read
 * both, so an upgrade needs no rewrite: a seed's next download writes the
 * short form.
 */
#ifndef LW_QUEUE_SEED_HTTP_H
#define LW_QUEUE_SEED_HTTP_H

#include <jansson.h>

/* The hops as a seed keeps them (a new reference; NULL when hops is not an
 * array or out of memory). seed_uri: the seed's `uri`. */
json_t *lw_seed_http_compact(const json_t *hops, const char *seed_uri);

/* The URI a hop asked for (borrowed): its own, else the seed's. */
const char *lw_seed_http_hop_uri(const json_t *hop, const char *seed_uri);

/* The media type the last download was answered with (the caller frees;
 * NULL when none): the seed's `content_type`, or in a record written
 * before it existed, the Content-Type of the last hop's headers. */
char *lw_seed_http_media_type(const json_t *seed);

#endif
