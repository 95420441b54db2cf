/*
 * Every Redis key lodwash uses, in one place, so that the scheduler, the
 * workers and the tool agree. All keys live under a configurable prefix
 * (LwConfig.prefix, default "lodwash:"), so several installations or test
 * runs can share one Redis server.
 *
 * Build a key with lw_key(prefix, LW_KEY_QUEUE, "download").s; patterns take
 * at most one "%s" argument (a stage name, a worker id or a seed hash).
 *
 * key (after the prefix)  type    contents
 * ----------------------  ------  -------------------------------------------
 * queue:<stage>           list    the ring of the harvests with jobs of this
 *                                 stage waiting ("" for jobs of no harvest);
 *                                 the rightmost is next: a fetch takes a job
 *                                 of its lane and moves it to the left end,
 *                                 so jobs go round robin by harvest
 * queue:<stage>:<harvest> list    job JSON waiting to run, of one harvest (its
 *                                 lane). Normal jobs are LPUSHed on the left,
 *                                 high-priority, handed-back, reaped and
 *                                 retried jobs RPUSHed on the right, and
 *                                 workers take from the right. Every move is
 *                                 a script with LANES (queue/scripts.c).
 * delayed:<stage>         zset    job JSON waiting for a retry; score = due
 *                                 time (ms since the epoch, Redis clock)
 * dead:<stage>            list    job JSON that failed for good, with the
 *                                 fields error, error_kind, failed (ms),
 *                                 first_failed (ms) and attempt added
 * queued:<stage>          set     "seed harvest" (lw_job_member) of the jobs of
 *                                 this stage queued, delayed or in flight
 *                                 (duplicate suppression); dead jobs leave it
 * stats:<stage>           hash    counters: done, failed (attempts that
 *                                 failed), retried, reaped, deferred (no
 *                                 attempt spent: a download's host full)
 * stages                  set     every stage name a job was ever queued for
 * workers                 set     ids of the workers that registered
 * worker:<id>             hash    heartbeat, with a TTL (heartbeat_ttl_s):
 *                                 host, pid, stages, started, job, stage,
 *                                 seed, since, progress; gone = worker dead
 * inflight:<id>           list    the jobs worker <id> holds right now
 * seed:<hash>             hash    a seed record (fields: queue/seed.h)
 * seeds                   hash    seed status -> number of seeds in it
 * hostslots:<host>        zset    requests to host now: downloads (member job
 *                                 id) and VoID fetches (member a fetch's id),
 *                                 score lease expiry: the per-host limit
 * robots:<origin>         hash    a host's robots.txt (politeness/politeness.h):
 *                                 state ok|none|unreachable, body; with a TTL
 * hostpace:<host>         string  when the next request to host may go (ms,
 *                                 Redis clock): the per-host rate
 * downloadslots           zset    downloads running over all workers (member
 *                                 job id, score lease expiry): --download-workers
 * cleanof:<content hash>  string  the clean record of content cleaned before
 *   <provider>                    (one space between: a provider's blank
 *                                 nodes are its own, workers/parse.c)
 * harvest:<id>            hash    a harvest (queue/provider_record.h, queue/harvest.h)
 * harvest:<id>:expected   set     its fan-in: files it waits for, ...
 * harvest:<id>:finished   set     ... those finished ...
 * harvest:<id>:failed     set     ... and those failed (queue/harvest.h)
 * provider:<name>         hash    what the scheduler knows of a provider
 * counters                hash    bytes downloaded, triples cleaned and imported,
 *                                 errors by kind (queue/report_read.h)
 * context:<md5 of URL>    hash    a cached JSON-LD context (workers/context_cache.h)
 * contexts                zset    the context cache's index: md5 of URL -> ms cached
 * unpacked:<harvest id>   hash    the harvest's unpack budget: archive seed hash
 *                                 -> "<bytes> <files>" (queue/unpack_budget.h)
 * unpacked                set     the harvests with an unpack budget: the
 *                                 budget over all harvests sums theirs
 * rechecks                zset    seed hash -> its `processed` (ms): the
 *                                 staleness check's index (queue/recheck_index.h)
 * indexes                 hash    index name -> when it was built from the
 *                                 records written before it (ms)
 * seeds:index             zset    seed hash -> its `updated` (ms): every seed
 *                                 with a status, for the collection
 *                                 (queue/gc_index.h)
 * harvests                zset    harvest id -> its `started` (ms): every
 *                                 harvest record (queue/gc_index.h)
 * providers               set     providers whose record has a `harvest` or
 *                                 `void_dumps` (queue/gc_index.h)
 * cleanofs                set     the content keys of the cleanof: entries
 *                                 (queue/gc_index.h)
 * scheduler:lease         string  the active scheduler's id, with a TTL
 * timing:<stage>          hash    job run time histogram (queue/job_timing.h)
 * paused                  set     stages an operator paused: not fetched
 *                                 (queue/controls.h)
 * held                    set     providers an operator held: not harvested
 *                                 (queue/controls.h)
 *
 */
#ifndef LW_QUEUE_KEYS_H
#define LW_QUEUE_KEYS_H

#define LW_DEFAULT_PREFIX "lodwash:"

#define LW_KEY_QUEUE "queue:%s"
#define LW_KEY_DELAYED "delayed:%s"
#define LW_KEY_DEAD "dead:%s"
#define LW_KEY_QUEUED "queued:%s"
#define LW_KEY_STATS "stats:%s"
#define LW_KEY_STAGES "stages"
#define LW_KEY_WORKERS "workers"
#define LW_KEY_WORKER "worker:%s"
#define LW_KEY_INFLIGHT "inflight:%s"
#define LW_KEY_SEED "seed:%s"
#define LW_KEY_SEED_COUNTS "seeds"
#define LW_KEY_HOST_SLOTS "hostslots:%s"      /* zset: download leases per host */
#define LW_KEY_HOST_WAITING "hostwaiting:%s"  /* zset: harvests waiting for a place */
#define LW_KEY_HOST_SERVED "hostserved:%s"    /* zset: harvests by last place given */
#define LW_KEY_ROBOTS "robots:%s"             /* hash: a host's robots.txt, cached */
#define LW_KEY_HOST_PACE "hostpace:%s"        /* string: next request time per host */
#define LW_KEY_DOWNLOAD_SLOTS "downloadslots" /* zset: downloads over all workers */
#define LW_KEY_CLEAN_OF "cleanof:%s" /* string: content hash -> clean record hash */
#define LW_KEY_HARVEST "harvest:%s"
#define LW_KEY_HARVEST_EXPECTED "harvest:%s:expected" /* set: files waited for */
#define LW_KEY_HARVEST_FINISHED "harvest:%s:finished" /* set: files finished */
#define LW_KEY_HARVEST_FAILED "harvest:%s:failed"     /* set: files failed */
#define LW_KEY_PROVIDER "provider:%s"
#define LW_KEY_SCHEDULER_LEASE "scheduler:lease"
#define LW_KEY_COUNTERS "counters"
#define LW_KEY_CONTEXT "context:%s"
#define LW_KEY_TIMING "timing:%s" /* hash: queue/job_timing.h */
#define LW_KEY_PAUSED "paused"    /* set of stage names: queue/controls.h */
#define LW_KEY_HELD "held"        /* set of provider names: queue/controls.h */
#define LW_KEY_REGISTRY                                                                    \
  "registry"                     /* hash: the last good registry, queue/registry_state.h */
#define LW_KEY_SAMPLES "samples" /* list: one a minute, queue/samples.h */
#define LW_KEY_CONTEXTS "contexts"
#define LW_KEY_UNPACKED "unpacked:%s" /* hash: archive seed -> "bytes files" */
#define LW_KEY_UNPACKED_ALL "unpacked"  /* set: harvests with an unpacked: hash */
#define LW_KEY_RECHECKS "rechecks" /* zset: seed -> processed ms, queue/recheck_index.h */
#define LW_KEY_INDEXES "indexes"   /* hash: index name -> ms it was built at */
/* The collection's indexes (queue/gc_index.h). The seed index's name is
 * the counts key's with ":index", and the re-check index's the counts
 * key's with LW_KEY_SEED_COUNTS replaced by LW_KEY_RECHECKS: the seed
 * scripts derive both from it (queue/scripts.c, SEED_INDEX). */
#define LW_KEY_SEED_INDEX LW_KEY_SEED_COUNTS ":index"
#define LW_KEY_HARVEST_INDEX "harvests"   /* zset: harvest id -> started */
#define LW_KEY_PROVIDER_INDEX "providers" /* set: providers with harvest/void_dumps */
#define LW_KEY_CLEAN_OF_INDEX "cleanofs"  /* set: content keys of cleanof: */

/* Longest key lw_key builds; longer ones are truncated (never happens with
 * stage names, worker ids and hashes, which are short). */
#define LW_KEY_MAX 512

typedef struct {
  char s[LW_KEY_MAX];
} LwKey;

/* prefix + pattern with arg in place of "%s" (arg may be NULL when the
 * pattern has none). Returned by value: use .s in the same expression or
 * keep the LwKey. */
LwKey lw_key(const char *prefix, const char *pattern, const char *arg);

#endif
