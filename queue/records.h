/*
 * Typed changes of the records that stages make, so that no stage builds a
 * key: each adds an op to a txn (queue/txn.h, applied with the job's fenced
 * ack) or reads one record. The seed record has queue/seed.h, the harvest
 * fan-in queue/harvest.h, the jobs queue/queue.h; key names queue/keys.h.
 */
#ifndef LW_QUEUE_RECORDS_H
#define LW_QUEUE_RECORDS_H

#include <jansson.h>

#include "base/base.h"
#include "queue/redis.h"
#include "queue/txn.h"

/* Removes field from the seed's record. */
void lw_txn_seed_unset(LwTxn *txn, const char *seed, const char *field);

/* Sets field of the seed's record to value, or removes it when value is
 * what every reader takes the field's absence for (fallback: "0", "false",
 * "", "[]"): a record at rest holds no field that says nothing
 * (docs/retention.md, "Redis memory per seed at rest"). */
void lw_txn_seed_set_or_drop(LwTxn *txn, const char *seed, const char *field,
                             const char *value, const char *fallback);

/* Sets an integer field of the seed's record, or removes it when 0 (what
 * its absence reads as: lw_txn_seed_set_or_drop). */
void lw_txn_seed_int_or_drop(LwTxn *txn, const char *seed, const char *field, long long v);

/* The seed's data file is rel (relative to the data directory): stored,
 * or dropped when it is the seed's default file (lw_seed_default_file),
 * which every reader of the record gets back. */
void lw_txn_seed_file(LwTxn *txn, const char *seed, const char *rel);

/* Adds n to a global counter (queue/report_read.h: bytes downloaded, triples
 * cleaned and imported, errors by kind). */
void lw_txn_counter_add(LwTxn *txn, const char *counter, long long n);

/* Marks the provider: a staleness re-check found one of its dumps changed
 * at ms (text); its next visit starts a harvest (queue/provider_record.h). */
void lw_txn_provider_dump_changed(LwTxn *txn, const char *provider, const char *ms);

/* Sets one field of the harvest's record (the import's report). */
void lw_txn_harvest_set(LwTxn *txn, const char *harvest, const char *field,
                        const char *value);

/* Content (named by content_key) is cleaned into the clean record clean. */
void lw_txn_clean_of_set(LwTxn *txn, const char *content_key, const char *clean);

/* The clean record of content_key: LW_OK with out set, LW_NOTHING when the
 * content was never cleaned. */
LwStatus lw_records_clean_of(LwRecords *c, const char *prefix, const char *content_key,
                             char out[LW_HASH_HEX_LEN + 1], LwError *err);

/* The harvest's record as JSON strings (caller decrefs); LW_NOTHING and
 * *out NULL when there is none. */
LwStatus lw_records_harvest_get(LwRecords *c, const char *prefix, const char *harvest,
                                json_t **out, LwError *err);

/* The provider's record (provider:<name>, queue/provider_record.h) as JSON
 * strings (caller decrefs); LW_NOTHING and *out NULL when there is none. */
LwStatus lw_records_provider_get(LwRecords *c, const char *prefix, const char *name,
                                 json_t **out, LwError *err);

/* Sets n strings (field, value, ...) on the harvest's record at once. */
LwStatus lw_records_harvest_set_fields(LwRecords *c, const char *prefix,
                                       const char *harvest, const char *const *fields,
                                       size_t n, LwError *err);

/* Called for each harvest record found: its id and record (fn's to read,
 * not to keep). */
typedef void (*LwHarvestEachFn)(void *arg, const char *id, const json_t *record);

/* Every harvest record of provider (ids "<provider>:<start>"; NULL: of
 * every provider), walked with SCAN (a record present for the whole walk is
 * seen at least once; not in any order). */
LwStatus lw_records_harvest_each(LwRecords *c, const char *prefix, const char *provider,
                                 LwHarvestEachFn fn, void *arg, LwError *err);

/* A mark that moves when the harvests' records change: the MD5 of the
 * number of keys (records added or removed, by a harvest or by retention),
 * the seeds' per-status counts and the counts of stages' jobs (each ack of
 * a job of the n stages given counts). Equal marks: no job of those stages
 * ended and no record came or went in between. The scheduler's own moves of
 * a harvest (a timeout, a cancel) do not move it; keys of other prefixes in
 * the same database do. */
LwStatus lw_records_change_mark(LwRecords *c, const char *prefix, const char *const *stages,
                                size_t n, char out[LW_HASH_HEX_LEN + 1], LwError *err);

/* Called for each provider record found: its name and record (fn's to
 * read, not to keep). */
typedef void (*LwProviderEachFn)(void *arg, const char *name, const json_t *record);

/* Every provider record (provider:<name>), walked with SCAN as
 * lw_records_harvest_each: the providers lodwash has visited, whether or
 * not the registry still lists them. */
LwStatus lw_records_provider_each(LwRecords *c, const char *prefix, LwProviderEachFn fn,
                                  void *arg, LwError *err);

#endif
