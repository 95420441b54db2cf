#include "scheduler/dashboard_rate.h"

#include <pthread.h>
#include <string.h>

/* Samples kept: one per overview at most every 5 s, five minutes' worth. */
#define SAMPLES 64
#define WINDOW_MS (5 * 60 * 1000LL)
#define MIN_GAP_MS 5000LL

typedef struct {
  long long at_ms;
  json_t *done; /* stage -> total done */
} Sample;

static Sample samples[SAMPLES];
static size_t next_slot;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The oldest sample within the window, at least MIN_GAP_MS old, or NULL. */
static const Sample *baseline(long long now_ms)
{
  const Sample *best = NULL;
  for (size_t i = 0; i < SAMPLES; ++i) {
    const Sample *s = &samples[i];
    if (s->done && now_ms - s->at_ms <= WINDOW_MS && now_ms - s->at_ms >= MIN_GAP_MS &&
        (!best || s->at_ms < best->at_ms)) {
      best = s;
    }
  }
  return best;
}

static long long newest_ms(void)
{
  long long newest = 0;
  for (size_t i = 0; i < SAMPLES; ++i) {
    if (samples[i].done && samples[i].at_ms > newest) {
      newest = samples[i].at_ms;
    }
  }
  return newest;
}

json_t *lw_dashboard_rates(const json_t *stages, long long now_ms)
{
  json_t *rates = json_object();
  pthread_mutex_lock(&lock);
  const Sample *base = baseline(now_ms);
  const char *stage;
  const json_t *counts;
  json_object_foreach((json_t *)stages, stage, counts) {
    const json_t *then = base ? json_object_get(base->done, stage) : NULL;
    if (then) {
      double minutes = (double)(now_ms - base->at_ms) / 60000.0;
      long long diff = json_integer_value(json_object_get(counts, "done")) -
                       json_integer_value(then);
      json_object_set_new(rates, stage, json_real(diff > 0 ? (double)diff / minutes : 0.0));
    }
  }
  if (now_ms - newest_ms() >= MIN_GAP_MS) {
    Sample *slot = &samples[next_slot];
    next_slot = (next_slot + 1) % SAMPLES;
    json_decref(slot->done);
    slot->at_ms = now_ms;
    slot->done = json_object();
    json_object_foreach((json_t *)stages, stage, counts) {
      json_object_set(slot->done, stage, json_object_get(counts, "done"));
    }
  }
  pthread_mutex_unlock(&lock);
  return rates;
}
