/*
 * Seed records: PREFIXseed:<hash>, one Redis hash per URI to fetch and per
 * file found in an archive (docs/design.md, "The records").
 *
 * Status machine (the LOD Laundromat states). A seed is created as `added`
 * (a URI), `filed` (an archive entry, already on disk) or `cleaned` (the
 * record of a clean file). Then:
 *
 *   added --> downloading --> filed | failed
 *   added --> filed   (an archive entry of a re-harvest, filed by unpack)
 *   filed --> unarchiving --> depleted (an archive) | unarchived (data)
 *   unarchived --> guessing --> guessed | skipped (optional, not RDF: done)
 *   guessed --> parsing --> parsed
 *   downloading, unarchiving, guessing, parsing --> failed   (any working state)
 *   failed, filed, depleted, unarchived, guessed, skipped, parsed --> added
 *                                                               (re-harvest)
 *   guessed, skipped, parsed --> unarchived   (reclean: the kept file again)
 *
 * A status may also be set to itself (a job that runs again after a crash
 * repeats its transitions). Anything else is refused with LW_ERR_STATE,
 * checked atomically on the server (a Lua script), which also keeps the
 * per-status counts in PREFIXseeds.
 *
 * Fields (all strings; JSON where noted), set by the stages:
 *   status, updated (ms, last status change), uri, relative ("true"),
 *   added (ms), processed (ms), interval (s), parent (hash), children (JSON
 *   list of hashes), http (JSON list, one element per hop:
 *   queue/seed_http.h), content (JSON: hash, sha256, newline,
 *   number_of_bytes, number_of_chars, number_of_lines),
 *   archive (JSON entry metadata), encoding, format, clean (hash of the clean
 *   record), dirty (hash of the dirty seed, on a clean record), error,
 *   triples, duplicates, syntax_errors, literal_errors, provider, harvest,
 *   file (the seed's current data file, relative to the data directory:
 *   download sets the body's file, unpack an entry's file or the recoded
 *   UTF-8 file; guess and parse read it; on a clean record, the clean file).
 * A field whose value would say nothing is not written, or removed: a
 * reader takes relative, unchanged, optional absent for false, resumed_from
 * and encoding_replaced for 0, errors for [] and skipped for ""
 * (docs/retention.md, "Redis memory per seed at rest"; a record written
 * before holds them, and reads the same).
 *
 * Harvest fan-in (queue/harvest.h): the worker frame derives it from each
 * ack of a file stage: seeds the job pushes jobs for are new files of the
 * harvest, and a seed whose job pushes no job for itself is finished; a
 * seed whose job goes dead is finished as failed in the fail's script.
 *
 * Stages should look at a seed's status before working: a seed already past
 * the stage (a job run twice) needs nothing done (return LW_NOTHING).
 */
#ifndef LW_QUEUE_SEED_H
#define LW_QUEUE_SEED_H

#include <jansson.h>
#include <stdbool.h>

#include "base/base.h"
#include "queue/job.h"
#include "queue/redis.h"

/* Every status, in pipeline order, NULL-terminated. */
extern const char *const lw_seed_statuses[];

/* True if status is one of lw_seed_statuses. */
bool lw_seed_status_valid(const char *status);

/* True if a seed in status may be harvested again (moved back to `added`):
 * no job works on it. */
bool lw_seed_status_resting(const char *status);

/* True if a seed's work is done and went well: its data cleaned (parsed; a
 * clean record: cleaned) or its archive emptied (depleted). */
bool lw_seed_status_done(const char *status);

/* True if a seed in status from (NULL or "" = no record yet) may move to to. */
bool lw_seed_transition_allowed(const char *from, const char *to);

/* Moves seed <hash> to status now; LW_ERR_STATE (message names both
 * statuses) if the machine does not allow it, LW_ERR_REDIS if Redis fails. */
LwStatus lw_seed_set_status(LwRecords *c, const char *prefix, const char *hash,
                            const char *status, LwError *err);

/* A stage's working status, written before the work (visible at once), and
 * fenced like the ack (queue/txn.h): job's seed moves to status in one
 * script call only while worker_id still holds job (it is in the worker's
 * in-flight list). LW_OK; LW_NOTHING when it does not (reaped after a stall
 * and maybe taken by another worker: nothing applied, the caller lost the
 * job and must not do its work); LW_ERR_STATE (nothing applied) if the
 * machine does not allow the move; LW_ERR_REDIS. */
LwStatus lw_seed_set_working(LwRecords *c, const char *prefix, const char *worker_id,
                             const LwJob *job, const char *status, LwError *err);

/* lw_seed_set_working with the read of the seed in the same round trip:
 * the move applies only while the seed belongs to job's harvest (or to
 * none), and *record (caller decrefs; NULL when there is no such seed) is
 * the seed as it is after the call. LW_ERR_STATE (nothing applied) when the
 * machine does not allow the move or the seed is another harvest's. */
LwStatus lw_seed_take_working(LwRecords *c, const char *prefix, const char *worker_id,
                              const LwJob *job, const char *status, json_t **record,
                              LwError *err);

/* Sets one field now (HSET). */
LwStatus lw_seed_set(LwRecords *c, const char *prefix, const char *hash, const char *field,
                     const char *value, LwError *err);

/* The hash of the seed of uri listed by provider: MD5 of "PROVIDER URI"
 * (the URI normalized), so that a dump listed by two providers is a seed of
 * each (their harvests never share a seed, nor a blank node's name); with
 * no provider (NULL or ""), lw_uri_hash(uri). */
void lw_seed_hash_for(const char *uri, const char *provider, char out[LW_HASH_HEX_LEN + 1]);

/* Records the seed of uri (lw_seed_hash_for) if it is not there yet:
 * status added, uri, added, and provider / harvest when not NULL. hash_out
 * gets its hash. Relative URIs are recorded with relative "true" (and never
 * queued by lw_seed_add). Returns LW_OK when created, LW_NOTHING when the record
 * existed (left as it was). */
LwStatus lw_seed_record(LwRecords *c, const char *prefix, const char *uri,
                        const char *provider, const char *harvest,
                        char hash_out[LW_HASH_HEX_LEN + 1], LwError *err);

/* lw_seed_record, then, for an absolute URI whose seed is (still or newly)
 * `added`, a "download" job (duplicates suppressed). *queued (may be NULL)
 * says whether a job was queued. */
LwStatus lw_seed_add(LwRecords *c, const char *prefix, const char *uri,
                     const char *provider, const char *harvest,
                     char hash_out[LW_HASH_HEX_LEN + 1], bool *queued, LwError *err);

/* The data file of seed hash unless its `file` names another: where the
 * download and the unpack put a body, "raw/ab/cd/<hash>" (relative to the
 * data directory), into buf. A record keeps `file` only when it names
 * another file (a recoded UTF-8 copy, a clean record's clean file; records
 * written before issue 27 keep it always); lw_seed_get and
 * lw_seed_take_working give it back on a record that has a body (a
 * `content`) and no `file`. */
LwStatus lw_seed_default_file(const char *hash, char *buf, size_t size);

/* The record as a JSON object of strings (caller decrefs), with its data
 * file (lw_seed_default_file). LW_NOTHING and *out NULL when there is no
 * such seed. */
LwStatus lw_seed_get(LwRecords *c, const char *prefix, const char *hash, json_t **out,
                     LwError *err);

/* lw_seed_get of hashes[0..n) in one round trip (pipelined): out[i] gets
 * each record, or NULL when there is no such seed (caller decrefs each).
 * On LW_ERR_REDIS the out[] already filled are the caller's too. */
LwStatus lw_seed_get_many(LwRecords *c, const char *prefix, const char *const *hashes,
                          size_t n, json_t **out, LwError *err);

/* One field of seed <hash> as stored (`file` is not derived here): *out
 * gets a copy (caller frees), or NULL and LW_NOTHING when the seed or the
 * field is absent. */
LwStatus lw_seed_get_field(LwRecords *c, const char *prefix, const char *hash,
                           const char *field, char **out, LwError *err);

/* The seed hash named by text: text itself when it is 32 hex digits
 * (lower-cased), else the hash of text as a URI. */
void lw_seed_hash_of(const char *text, char out[LW_HASH_HEX_LEN + 1]);

/* The seed named by text (a hash, or a URI: the seed of the URI added
 * without a provider, else the seed of the first provider that lists it,
 * providers as known to Redis). LW_OK with hash_out and *out (caller
 * decrefs) set; LW_NOTHING when there is none (hash_out: the URI's own). */
LwStatus lw_seed_find(LwRecords *c, const char *prefix, const char *text,
                      char hash_out[LW_HASH_HEX_LEN + 1], json_t **out, LwError *err);

/* For queue/txn.c: fills argv (at most max entries, strings owned by argv:
 * free with lw_seed_transition_argv_free) with an EVALSHA of the transition
 * script; returns argc, or -1 if status is unknown. strict: refusal is an
 * error; else a silent no-op. */
int lw_seed_transition_argv(const char *prefix, const char *hash, const char *status,
                            bool strict, const char **argv, int max);
void lw_seed_transition_argv_free(const char **argv, int argc);

#endif
