/*
 * Retention: what lodwash keeps in Redis and in the data directory, and
 * the collection that removes the rest, so that both stay flat however
 * often the same providers are harvested.
 *
 * A mark and sweep. What is live (marked):
 *   - the last --keep-harvests harvest records of each provider (by their
 *     `started`), every running harvest and each provider's current one
 *     (provider:<name> `harvest`);
 *   - the dump seeds of those harvests (harvest:<id> `seeds`, a JSON array
 *     of hashes, whichever provider's harvest lists them: a dump shared by
 *     two providers lives while either needs it), the dumps each provider's
 *     VoID lists now (provider:<name> `void_dumps`, a JSON array of URLs),
 *     and every seed with a job queued, delayed or in flight (the
 *     queued:<stage> sets);
 *   - from those, recursively: archive entries (seed `children`) and clean
 *     records (seed `clean`).
 * What is removed (swept), unless it changed within --gc-grace seconds:
 *   - harvest records beyond those kept, with their budget
 *     (unpacked:<id>), their fan-in sets (harvest:<id>:expected|finished|
 *     failed) and their changeset files;
 *   - seeds and clean records (status `cleaned`) that are not marked; seeds
 *     added by hand (no provider, harvest, parent or dirty seed) and seeds
 *     in a working status stay;
 *   - cleanof:<content hash> entries whose clean record is gone;
 *   - files under DATA/raw, utf8 and clean whose record is gone, DATA/
 *     changesets files of harvests that are gone, and DATA/tmp files: each
 *     only when older than the grace period (or its record was just swept).
 * The records are found through the collection's indexes, kept as they
 * are written (queue/gc_index.h), never by walking the keyspace (but once,
 * at the first collection after an upgrade, to build them).
 * Each record is removed by a script that first checks that its `updated`
 * is still the one the sweep read (a seed that a harvest took up meanwhile
 * stays) and keeps the per-status counts (seeds) right.
 *
 * Dead lists are capped apart (every scheduler cycle): each dead:<stage>
 * keeps its newest --dead-max jobs; the dropped ones are counted in the
 * counters hash as dead_dropped:<stage>.
 *
 * The scheduler runs the collection every --gc-interval seconds
 * (lw_retention_duty); `lodwash gc [--dry-run]` runs it now.
 */
#ifndef LW_QUEUE_RETENTION_H
#define LW_QUEUE_RETENTION_H

#include <stdbool.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/keys.h"
#include "queue/redis.h"

typedef struct {
  bool dry_run; /* find and report, remove nothing */
  /* Called for each thing removed (or, dry, that would be): kind is
   * "harvest", "seed", "clean", "cleanof", "budget", "file" or "dead"; what
   * names it (a key's id, a file relative to the data directory, or for
   * "dead" "<stage> <number dropped>"). May be NULL. */
  void (*removed)(void *data, const char *kind, const char *what);
  void *data;
} LwRetentionOptions;

typedef struct {
  long long harvests, seeds, cleaned, cleanof, budgets, files, dead_dropped;
  long long live; /* seeds and clean records marked live */
} LwRetentionStats;

/* Caps every dead list at cfg->dead_max (0: no cap). */
LwStatus lw_retention_trim_dead(LwRecords *c, const LwConfig *cfg,
                                const LwRetentionOptions *o, LwRetentionStats *stats,
                                LwError *err);

/* The whole collection (dead lists included) now, with cfg's settings. */
LwStatus lw_retention_run(LwRecords *c, const LwConfig *cfg, const LwRetentionOptions *o,
                          LwRetentionStats *stats, LwError *err);

/* The scheduler's duty each cycle: the dead lists always, the collection
 * when cfg->gc_interval_s passed since *last_ms (0: never ran; updated).
 * Logs a line when it collected or dropped dead jobs. Returns LW_ERR_REDIS
 * when Redis failed; other failures (a file that cannot be removed) are
 * logged and the cycle goes on (LW_OK). */
LwStatus lw_retention_duty(LwRecords *c, const LwConfig *cfg, long long *last_ms,
                           LwError *err);

#endif
