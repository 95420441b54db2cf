/* The harvest decision: first harvest, newer / same / older modified, content
 * hash fallback, errors, disabled providers, forcing, intervals, and one
 * harvest at a time with exactly one follow-up at the newest version. */
#include "scheduler/decide.h"
#include "tests/support/check.h"

static LwVersion at(const char *date)
{
  LwVersion v = {0};
  LwDateTime dt;
  if (lw_datetime_parse_str(date, &dt)) {
    v.has_time = true;
    v.usec = dt.usec;
  }
  return v;
}

static LwVersion hashed(const char *hash)
{
  LwVersion v = {0};
  snprintf(v.hash, sizeof(v.hash), "%s", hash);
  return v;
}

static LwProvider provider(const char *modified)
{
  LwProvider p = {0};
  p.name = (char *)"p";
  p.source = "void";
  p.source_url = (char *)"http://example.org/void.ttl";
  p.enabled = true;
  if (modified) {
    p.has_modified = lw_datetime_parse_str(modified, &p.modified);
  }
  return p;
}

static LwDecision decide(const LwDecideInput *in)
{
  LwDecideResult r;
  lw_decide(in, &r);
  CHECK(r.reason != NULL);
  return r.decision;
}

static void test_first_harvest(void)
{
  LwProvider p = provider("2015-10-01");
  LwDecideInput in = {&p, true, at("2015-11-05"), false, {0}, false, {0}, false, 0,
                      0,  false};
  /* VoID newer than the registry's modified. */
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  /* Same or older: nothing. */
  in.current = at("2015-10-01");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  in.current = at("2015-09-01");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  /* A date-time later the same day is newer than the date. */
  in.current = at("2015-10-01T00:00:01Z");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  /* Without a registry modified, the first VoID seen starts a harvest. */
  LwProvider q = provider(NULL);
  in.provider = &q;
  in.current = at("2000-01-01");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  in.current = hashed("abc");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  /* Only a content hash and a registry date: cannot compare, start once. */
  in.provider = &p;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  /* The result carries the version to record. */
  LwDecideResult r;
  in.current = at("2015-11-05");
  lw_decide(&in, &r);
  CHECK(r.version.has_time && r.version.usec == at("2015-11-05").usec);
}

static void test_after_harvest(void)
{
  LwProvider p = provider("2015-10-01");
  LwDecideInput in = {
    &p, true, at("2015-11-05"), true, at("2015-11-05"), false, {0}, false, 0, 0, false};
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  in.current = at("2015-11-06");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  /* The last harvest wins over the registry's older modified. */
  in.current = at("2015-11-01");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  /* Hash fallback: same hash nothing, other hash starts. */
  in.harvested = hashed("aaa");
  in.current = hashed("aaa");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  in.current = hashed("bbb");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  /* A VoID that gained a modified date after hash-only harvests: hashes
   * still decide while the old version has no time. */
  in.current = at("2016-01-01");
  snprintf(in.current.hash, sizeof(in.current.hash), "aaa");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  snprintf(in.current.hash, sizeof(in.current.hash), "ccc");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  /* Both times known: the content hash does not matter. */
  in.harvested = at("2016-01-01");
  snprintf(in.harvested.hash, sizeof(in.harvested.hash), "zzz");
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
}

static void test_errors_and_skips(void)
{
  LwProvider p = provider("2015-10-01");
  LwDecideInput in = {&p, false, at("2016-01-01"), false, {0}, false, {0}, false, 0,
                      0,  false};
  CHECK_INT_EQ(decide(&in), LW_DECIDE_ERROR);
  in.forced = true;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_ERROR);
  in.forced = false;
  in.void_ok = true;
  p.enabled = false;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_SKIP);
  /* Forcing a disabled provider harvests it: the user asked by name. */
  in.forced = true;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
}

static void test_backoff(void)
{
  LwProvider p = provider("2015-10-01");
  /* A failed harvest left harvested at 2015-11-01; the VoID says 11-05. */
  LwDecideInput in = {
    &p, true, at("2015-11-05"), true, at("2015-11-01"), false, {0}, false, 100, 200, false};
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  in.now_usec = 200;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  in.now_usec = 100;
  in.forced = true;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  /* A first harvest that failed (timed out) waits too (it was started
   * again every cycle), with or without a registry modified. */
  LwProvider q = provider(NULL);
  LwDecideInput first = {&q,  true, at("2015-11-05"), false, {0}, false, {0}, false, 100,
                         200, false};
  CHECK_INT_EQ(decide(&first), LW_DECIDE_UNCHANGED);
  first.now_usec = 200;
  CHECK_INT_EQ(decide(&first), LW_DECIDE_START);
  first.now_usec = 100;
  first.provider = &p;
  first.current = hashed("abc");
  CHECK_INT_EQ(decide(&first), LW_DECIDE_UNCHANGED);
}

/* in's decision while a harvest of the VoID's version runs: busy, and
 * whether a follow-up is kept. */
static bool follow_up_while_running(LwDecideInput in)
{
  in.running = true;
  in.running_version = in.current;
  LwDecideResult r;
  lw_decide(&in, &r);
  CHECK_INT_EQ(r.decision, LW_DECIDE_BUSY);
  return r.follow_up;
}

static void test_forced(void)
{
  LwProvider p = provider(NULL);
  LwDecideInput in = {
    &p, true, at("2015-11-05"), true, at("2015-11-05"), false, {0}, true, 0, 0, false};
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  CHECK(follow_up_while_running(in));
}

/* A dump that changed without its VoID: a harvest as the VoID says, the
 * follow-up when one runs; the backoff and a disabled provider still hold. */
static void test_dump_changed(void)
{
  LwProvider p = provider(NULL);
  LwDecideInput in = {
    &p, true, at("2015-11-05"), true, at("2015-11-05"), false, {0}, false, 100, 0, false};
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  in.dump_changed = true;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_START);
  in.retry_at_usec = 200;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_UNCHANGED);
  in.retry_at_usec = 0;
  CHECK(follow_up_while_running(in));
  p.enabled = false;
  CHECK_INT_EQ(decide(&in), LW_DECIDE_SKIP);
}

static void test_busy(void)
{
  LwProvider p = provider("2015-10-01");
  LwDecideInput in = {
    &p, true, at("2015-11-05"), false, {0}, true, at("2015-11-05"), false, 0, 0, false};
  LwDecideResult r;
  lw_decide(&in, &r);
  CHECK_INT_EQ(r.decision, LW_DECIDE_BUSY);
  CHECK(!r.follow_up);
  in.current = at("2015-11-06");
  lw_decide(&in, &r);
  CHECK_INT_EQ(r.decision, LW_DECIDE_BUSY);
  CHECK(r.follow_up);
  CHECK_INT_EQ(r.version.usec, at("2015-11-06").usec);
}

/* A small model of the scheduler's per-provider state around lw_decide:
 * the VoID moves three times while a long harvest runs; when it ends exactly
 * one follow-up starts, with the newest version. */
typedef struct {
  bool running;
  LwVersion running_version;
  bool has_harvested;
  LwVersion harvested;
  bool pending;
  int started;
  int64_t started_usec[8];
} Model;

static void cycle(Model *m, const LwProvider *p, LwVersion current)
{
  LwDecideInput in = {
    p, true, current, m->has_harvested, m->harvested, m->running, m->running_version, false,
    0, 0,    false};
  LwDecideResult r;
  lw_decide(&in, &r);
  if (r.decision == LW_DECIDE_START) {
    m->running = true;
    m->running_version = r.version;
    m->pending = false;
    m->started_usec[m->started++ % 8] = r.version.usec;
  } else if (r.decision == LW_DECIDE_BUSY && r.follow_up) {
    m->pending = true; /* one slot: a newer version overwrites it */
  }
}

static void finish(Model *m)
{
  m->running = false;
  m->has_harvested = true;
  m->harvested = m->running_version;
}

static void test_follow_up(void)
{
  LwProvider p = provider("2015-10-01");
  Model m = {0};
  cycle(&m, &p, at("2015-11-01"));
  CHECK_INT_EQ(m.started, 1);
  /* The VoID moves three times during the harvest. */
  cycle(&m, &p, at("2015-11-02"));
  cycle(&m, &p, at("2015-11-03"));
  cycle(&m, &p, at("2015-11-04"));
  CHECK_INT_EQ(m.started, 1);
  CHECK(m.pending);
  finish(&m);
  /* Next cycle: one follow-up with the newest modified. */
  cycle(&m, &p, at("2015-11-04"));
  CHECK_INT_EQ(m.started, 2);
  CHECK_INT_EQ(m.started_usec[1], at("2015-11-04").usec);
  CHECK(!m.pending);
  finish(&m);
  /* And then nothing more. */
  cycle(&m, &p, at("2015-11-04"));
  cycle(&m, &p, at("2015-11-04"));
  CHECK_INT_EQ(m.started, 2);
}

static void test_due(void)
{
  LwProvider p = provider(NULL);
  const int64_t s = 1000000;
  CHECK(lw_decide_due(&p, false, 0, 100 * s));
  CHECK(lw_decide_due(&p, true, 99 * s, 100 * s));
  p.interval = 60;
  CHECK(lw_decide_due(&p, false, 0, 100 * s));
  CHECK(!lw_decide_due(&p, true, 50 * s, 100 * s));
  CHECK(lw_decide_due(&p, true, 40 * s, 100 * s));
  CHECK(lw_decide_due(&p, true, 200 * s, 100 * s));
}

static void test_compare(void)
{
  LwVersion none = {0};
  CHECK_INT_EQ(lw_version_compare(&none, &none), 0);
  LwVersion a = at("2015-01-01"), b = at("2015-01-02");
  CHECK(lw_version_compare(&a, &b) < 0);
  CHECK(lw_version_compare(&b, &a) > 0);
  CHECK(lw_version_compare(&a, &none) > 0);
  CHECK_INT_EQ(lw_version_compare(&none, &a), 0);
  LwVersion h1 = hashed("1"), h2 = hashed("2");
  CHECK(lw_version_compare(&h1, &h2) > 0);
  CHECK_INT_EQ(lw_version_compare(&h1, &h1), 0);
  CHECK_STR_EQ(lw_decision_name(LW_DECIDE_BUSY), "busy");
  CHECK_STR_EQ(lw_decision_name(LW_DECIDE_START), "start");
}

int main(void)
{
  test_first_harvest();
  test_after_harvest();
  test_errors_and_skips();
  test_backoff();
  test_forced();
  test_dump_changed();
  test_busy();
  test_follow_up();
  test_due();
  test_compare();
  return lw_test_finish();
}
