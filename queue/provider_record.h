/*
 * Provider state and harvest records on Redis: what lodwash learns about a
 * provider (the registry file itself is never written), and one record per
 * harvest.
 *
 * Keys (after the prefix; defined in queue/keys.h):
 *
 *   provider:<name>  hash  the provider's state, written by the scheduler:
 *       void            the VoID URL last visited
 *       modified        the registry's `modified` (ISO 8601), "" if none
 *       checked         ms of the last visit of the VoID
 *       void_modified   the VoID's version at the last visit: its
 *                       dcterms:modified, else its HTTP Last-Modified (ISO);
 *                       "" when neither was there
 *       void_source     where that came from: dataset, document,
 *                       last-modified, content-hash
 *       void_hash       MD5 of the VoID's content at the last visit
 *       void_etag, void_http_modified   validators for the conditional GET
 *       void_dumps      JSON array of the dumps the VoID listed
 *       state           idle | harvesting | error
 *       harvest         id of the current or last harvest
 *       harvested       version of the last harvest that finished with every
 *                       dump in (ISO), "" if only a hash was known
 *       harvested_hash  VoID content hash of that harvest
 *       harvested_at    ms when it finished
 *       pending         version a follow-up harvest will take (the VoID
 *                       moved while a harvest ran); absent when none
 *       force           "1": `lodwash harvest NAME` asked for a harvest
 *       dump_changed    ms: a staleness re-check found a dump of this
 *                       provider changed while its VoID did not
 *                       (workers/download.c); the next visit starts a
 *                       harvest (scheduler/decide.h). Cleared, as force
 *                       and pending, when a harvest starts
 *       failures        harvests in a row that did not get every dump in
 *       retry_at        ms before which a failed harvest is not tried again
 *       error           the last error ("" when the last visit was fine)
 *       warnings        JSON array of the VoID's warnings at the last visit
 *       kind            the source's kind: void, dcat, ckan, sitemap, sparql
 *       source_datasets JSON array: a catalogue's datasets at the last visit,
 *                       each {id, title, version, state (new, changed,
 *                       unchanged, gone), dumps, skipped: [{url, reason}]}
 *       source_digest   MD5 of void_dumps, source_datasets and warnings as
 *                       written: a visit that finds them the same does not
 *                       write them again
 *       harvested_datasets  JSON object id -> version of the datasets as
 *                       the last done harvest found them (the baseline
 *                       the next visit compares with)
 *
 *   harvest:<id>     hash  one harvest (id = "<name>:<start time ISO 8601>"):
 *       id, provider, void (URL), modified (version ISO or ""), source,
 *       void_hash, kind (full|partial|unstated), features (JSON array),
 *       dumps (JSON array of URLs), seeds (JSON array of seed hashes),
 *       started (ms), forced ("1"/"0"), status (running|done|failed),
 *       datasets (JSON object id -> version: a catalogue's, see
 *       harvested_datasets),
 *       pending (files expected and not yet finished: the fan-in of
 *       queue/harvest.h, with its sets harvest:<id>:expected|finished|failed),
 *       progress (ms of the fan-in's last change), finished (ms), error
 *
 *   scheduler:lease  string  the active scheduler's id, with a TTL
 *
 * A harvest starts only if the provider is not already harvesting: the
 * claim is one Lua script, so a forced harvest from `lodwash harvest` and the
 * scheduler never start two at once.
 */
#ifndef LW_QUEUE_PROVIDER_RECORD_H
#define LW_QUEUE_PROVIDER_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "queue/keys.h"
#include "queue/provider_version.h"
#include "queue/redis.h"

#include "queue/harvest.h" /* the fan-in */


/* Longest harvest id. */
#define LW_HARVEST_ID_MAX 192

/* The state of one provider as read from Redis. */
typedef struct {
  bool running;                    /* state == harvesting */
  char harvest[LW_HARVEST_ID_MAX]; /* current or last harvest, "" if none */
  LwVersion running_version;       /* the running harvest's version */
  bool has_harvested;
  LwVersion harvested;
  bool forced;           /* a forced harvest is asked for */
  bool dump_changed;     /* a staleness re-check found a dump changed */
  long long checked_ms;  /* 0 if never */
  long long retry_at_ms; /* 0 if none */
  long long failures;
  char etag[256]; /* validators of the last VoID response */
  char http_modified[64];
  /* MD5 of the catalogue's view last written (source_digest): the datasets
   * and dumps, megabytes at 100,000 datasets, are written only when it moves */
  char source_digest[LW_HASH_HEX_LEN + 1];
} LwProviderState;

/* Reads provider:<name> (and the running harvest's version). A provider
 * never seen reads as all zero. */
LwStatus lw_provider_state_read(LwRecords *c, const char *prefix, const char *name,
                                LwProviderState *out, LwError *err);

/* One dump a new harvest downloads, as its VoID listed it. */
typedef struct {
  const char *url;
  const char *checksum_algorithm; /* "md5", "sha256", ... or NULL */
  const char *checksum_value;     /* hex as written, or NULL */
  /* Its format is not declared: a file of it that is not RDF is skipped
   * (seed field `optional`, workers/guess.c), not failed. */
  bool optional;
} LwHarvestDump;

/* What a new harvest is made of (plain values: the scheduler reads the VoID,
 * scheduler/harvest_plan.h). */
typedef struct {
  const char *provider;
  const char *void_url;
  const LwVersion *version;
  const char *source; /* dataset, document, last-modified, content-hash */
  const char *kind;   /* full, partial or unstated */
  const LwHarvestDump *dumps;
  size_t dump_count;
  const char *const *features; /* the VoID's void:feature IRIs */
  size_t feature_count;
  bool forced; /* queue the downloads at high priority */
  /* A catalogue's datasets and their versions (JSON object: id -> version)
   * as this harvest found them; once it is done they become the
   * provider's `harvested_datasets`. NULL for a VoID. */
  const char *datasets;
} LwHarvestStart;

/* A new harvest id for provider: "<provider>:<now ISO 8601, ms>". */
void lw_harvest_new_id(const char *provider, char id_out[LW_HARVEST_ID_MAX]);

/* Marks provider name harvesting harvest id, in one script: LW_NOTHING (and
 * nothing changed) if a harvest of it is running. */
LwStatus lw_harvest_claim(LwRecords *c, const char *prefix, const char *name,
                          const char *id, LwError *err);

/* Claims the provider (fails with LW_NOTHING if a harvest is running), then
 * creates the harvest record and one seed per dump (status added, provider
 * and harvest set; a seed known from an earlier harvest is moved back to
 * added) and queues their download jobs, and marks the provider harvesting.
 * id_out gets the harvest id. */
LwStatus lw_harvest_start(LwRecords *c, const char *prefix, const LwHarvestStart *h,
                          char id_out[LW_HARVEST_ID_MAX], LwError *err);

/* Ends a running harvest id: status done (ok) or failed (with error),
 * finished now; then settles its provider: if it is still the provider's
 * current harvest, the provider becomes idle. Only a harvest with every dump
 * in (ok) advances `harvested`; a failed one counts a failure and sets
 * retry_at (backoff: 1 min doubling up to a day), after which the scheduler
 * tries again. (The import stage writes status done|failed itself; the
 * scheduler then settles the provider at its next visit.) LW_NOTHING if
 * there was nothing to settle. */
LwStatus lw_harvest_finish(LwRecords *c, const char *prefix, const char *id, bool ok,
                           const char *error, LwError *err);

/* Settles the provider of harvest id once the import stage has set the
 * harvest's status to done or failed (lw_provider_state_read does this
 * whenever it finds such a harvest still marked as running on its
 * provider). LW_NOTHING when there was nothing to settle. */
LwStatus lw_harvest_settle(LwRecords *c, const char *prefix, const char *id, LwError *err);

/* Ends harvest id as failed when it is running and made no progress (a file
 * expected or finished, queue/harvest.h) for timeout_ms, with the reason in
 * its `error`, and settles its provider (failures counted, retry_at backed
 * off: the provider is harvested again later). *timed_out says whether it
 * did. timeout_ms <= 0: never. */
LwStatus lw_harvest_check_timeout(LwRecords *c, const char *prefix, const char *id,
                                  long long timeout_ms, bool *timed_out, LwError *err);

/* Asks for a forced harvest of name at the next visit (`lodwash harvest`
 * when the scheduler should do it). */
LwStatus lw_provider_request_force(LwRecords *c, const char *prefix, const char *name,
                                   LwError *err);

#endif
