#include "scheduler/decide.h"

#include <string.h>

static bool version_known(const LwVersion *v)
{
  return v->has_time || v->hash[0];
}

int lw_version_compare(const LwVersion *a, const LwVersion *b)
{
  if (a->has_time && b->has_time) {
    return (a->usec > b->usec) - (a->usec < b->usec);
  }
  /* Without two times only a change can be seen, not its direction. */
  if (a->hash[0] && b->hash[0]) {
    return strcmp(a->hash, b->hash) != 0;
  }
  return version_known(a) && !version_known(b);
}

bool lw_decide_due(const LwProvider *provider, bool checked_before, int64_t last_check_usec,
                   int64_t now_usec)
{
  if (!checked_before || provider->interval <= 0) {
    return true;
  }
  /* A clock that went backwards makes the provider due rather than stuck. */
  if (now_usec < last_check_usec) {
    return true;
  }
  return now_usec - last_check_usec >= (int64_t)provider->interval * 1000000;
}

static void set(LwDecideResult *r, LwDecision d, const char *reason)
{
  r->decision = d;
  r->reason = reason;
}

void lw_decide(const LwDecideInput *in, LwDecideResult *r)
{
  memset(r, 0, sizeof(*r));
  if (!in->forced && in->provider && !in->provider->enabled) {
    set(r, LW_DECIDE_SKIP, "disabled in the registry");
    return;
  }
  if (!in->void_ok) {
    set(r, LW_DECIDE_ERROR, "VoID not usable");
    return;
  }
  if (in->running) {
    /* One harvest at a time: remember only whether a newer version waits
     * (the scheduler keeps the newest, so exactly one follow-up runs). */
    r->follow_up = in->forced || in->dump_changed ||
                   lw_version_compare(&in->current, &in->running_version) > 0;
    r->version = in->current;
    set(r, LW_DECIDE_BUSY,
        r->follow_up ? "harvest running, follow-up pending" : "harvest running");
    return;
  }
  r->version = in->current;
  if (in->forced) {
    set(r, LW_DECIDE_START, "forced");
    return;
  }
  /* A failed harvest (a dump missing, or timed out) backs off, a first
   * harvest too: retry_at is only set after a failure. */
  if (in->retry_at_usec && in->now_usec < in->retry_at_usec) {
    set(r, LW_DECIDE_UNCHANGED, "waiting to retry after a failed harvest");
    return;
  }
  if (in->dump_changed) {
    set(r, LW_DECIDE_START, "a dump changed without its VoID (staleness re-check)");
    return;
  }
  LwVersion baseline = {0};
  const char *newer = "VoID modified is newer than the last harvest";
  if (in->has_harvested) {
    baseline = in->harvested;
  } else if (in->provider && in->provider->has_modified) {
    baseline.has_time = true;
    baseline.usec = in->provider->modified.usec;
    newer = "VoID modified is newer than the registry's modified";
  } else {
    set(r, LW_DECIDE_START, "first harvest");
    return;
  }
  if (!in->current.has_time && !baseline.hash[0]) {
    /* Nothing to compare a content hash with: start once, then the hash
     * becomes the baseline. */
    set(r, LW_DECIDE_START, "no modified date to compare; first harvest by content");
    return;
  }
  if (lw_version_compare(&in->current, &baseline) > 0) {
    set(r, LW_DECIDE_START,
        in->current.has_time && baseline.has_time ? newer : "content changed");
    return;
  }
  set(r, LW_DECIDE_UNCHANGED, "unchanged");
}

const char *lw_decision_name(LwDecision decision)
{
  switch (decision) {
  case LW_DECIDE_START:
    return "start";
  case LW_DECIDE_UNCHANGED:
    return "unchanged";
  case LW_DECIDE_BUSY:
    return "busy";
  case LW_DECIDE_ERROR:
    return "error";
  case LW_DECIDE_SKIP:
    return "skip";
  }
  return "unknown";
}
