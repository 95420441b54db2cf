/*
 * The harvest decision, kept pure (no Redis, no HTTP) so that every case can
 * be tested: given what the registry says, what lodwash last harvested, what
 * the VoID says now and whether a harvest is running, what happens?
 *
 * A provider's "version" is what says whether its data changed:
 *   - the VoID's dcterms:modified (the latest of its datasets), else
 *   - the VoID's HTTP Last-Modified, else
 *   - a hash of the VoID's content (then only "changed or not" is known).
 * The caller works out which one applies (scheduler.c); this file compares.
 *
 * Rules:
 *   - a provider that is disabled is not visited (SKIP);
 *   - a VoID that could not be fetched or read is an ERROR; nothing starts;
 *   - a harvest starts (START) when the version is later than the last one
 *     harvested, or, the first time, later than the registry's `modified`
 *     (no `modified` in the registry: the first version seen starts one);
 *     with only a content hash, when the hash differs from the last harvested;
 *   - one harvest at a time per provider: while one runs, the answer is BUSY,
 *     and `follow_up` says whether the VoID has moved past the running
 *     harvest's version. The scheduler keeps just one pending version, the
 *     newest, so when the running harvest ends exactly one follow-up starts,
 *     with the newest modified; the versions in between are skipped;
 *   - a forced harvest (`lodwash harvest NAME`) starts whatever the versions
 *     say, or is kept as the follow-up when one is running;
 *   - a dump that changed without its VoID saying so (a staleness re-check
 *     found new content, workers/download.c) starts a harvest as the VoID
 *     says, or is kept as the follow-up; unlike a forced one it waits for
 *     retry_at and does not wake a disabled provider;
 *   - otherwise UNCHANGED.
 * Only a harvest that got every dump in advances the harvested version; after
 * a failed one the provider is tried again, but not before retry_at (the
 * backoff, queue/provider_record.h), unless forced.
 */
#ifndef LW_DECIDE_H
#define LW_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "config/config.h"
#include "queue/provider_version.h" /* LwVersion */

typedef enum {
  LW_DECIDE_START = 0, /* start a harvest now */
  LW_DECIDE_UNCHANGED, /* nothing new */
  LW_DECIDE_BUSY,      /* a harvest is running; see follow_up */
  LW_DECIDE_ERROR,     /* the VoID could not be used; nothing starts */
  LW_DECIDE_SKIP       /* disabled in the registry */
} LwDecision;

typedef struct {
  const LwProvider *provider; /* the registry entry (enabled, modified) */
  bool void_ok;               /* false: the VoID could not be fetched/read */
  LwVersion current;          /* the version the VoID shows now */
  bool has_harvested;         /* a harvest of this provider has finished */
  LwVersion harvested;        /* the version of the last finished harvest */
  bool running;               /* a harvest is running now */
  LwVersion running_version;  /* the version the running harvest took */
  bool forced;                /* `lodwash harvest NAME` asked for one */
  int64_t now_usec;           /* the current time */
  int64_t retry_at_usec;      /* after a failed harvest, no new one (unless
                                 forced) before this; 0: none */
  bool dump_changed;          /* a staleness re-check found a dump changed */
} LwDecideInput;

typedef struct {
  LwDecision decision;
  bool follow_up;     /* BUSY: start one more harvest when the running ends */
  LwVersion version;  /* START: the version to record on the new harvest;
                         BUSY with follow_up: the version to keep pending */
  const char *reason; /* a short static text for the log line */
} LwDecideResult;

/* Decides for one provider. Never fails; the result says why. */
void lw_decide(const LwDecideInput *input, LwDecideResult *result);

/* <0, 0, >0 as version a is older than, the same as, or newer than b.
 * Times compare as times; when either lacks a time, hashes compare for
 * equality only (different = newer), and a version with nothing known
 * compares equal to anything. */
int lw_version_compare(const LwVersion *a, const LwVersion *b);

/* True if the provider is due for a visit: never checked, or at least its
 * `interval` seconds since last_check_usec (0 interval: every cycle). */
bool lw_decide_due(const LwProvider *provider, bool checked_before, int64_t last_check_usec,
                   int64_t now_usec);

/* "start", "unchanged", "busy", "error" or "skip". */
const char *lw_decision_name(LwDecision decision);

#endif
