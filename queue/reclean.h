/*
 * Reclean: when the cleaner improves, the data already harvested benefits
 * without downloading it again (`lodwash reclean NAME`).
 *
 * A reclean is a harvest (queue/provider_record.h) of the provider, claimed the
 * same way (one harvest per provider at a time; none of a held provider),
 * whose record copies the provider's last harvest (void, version, dumps,
 * seeds) and adds `reclean` "1". Its expected files (queue/harvest.h) are
 * the provider's data seeds: the leaves under the last harvest's dumps (archive entries
 * through `children`) whose status is unarchived, guessed or parsed, i.e.
 * whose raw file is kept in the data directory. In one transaction each is
 * moved back to `unarchived` (a checked transition of queue/seed.h), made
 * the reclean's, and gets a guess job. Then the pipeline runs as usual:
 * guess, parse (which does not take a clean file from the clean cache
 * during a reclean: the cleaner may have changed), and the harvest's import,
 * whose changeset (changesets/NAME/ID.added|removed.nq.gz) shows what the
 * new cleaner changed. Nothing is downloaded or unpacked.
 *
 * Dumps whose last download failed, and archives, are not cleaned again
 * (nothing of theirs is a kept data file); a dump that failed leaves the
 * reclean failed too, as it left the harvest it copies.
 */
#ifndef LW_QUEUE_RECLEAN_H
#define LW_QUEUE_RECLEAN_H

#include <stddef.h>

#include "base/base.h"
#include "queue/provider_record.h"
#include "queue/redis.h"

/* Starts a reclean of provider. id_out gets its id and *files the number of
 * data files queued. LW_NOTHING (nothing changed) when a harvest of the
 * provider is running; LW_ERR_STATE when the provider is held, was never
 * harvested or has no data file kept. */
LwStatus lw_reclean_start(LwRecords *c, const char *prefix, const char *provider,
                          char id_out[LW_HARVEST_ID_MAX], size_t *files, LwError *err);

#endif
