#include "queue/job.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

long long lw_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* splitmix64, seeded from /dev/urandom (or time and pid): ids need to be
 * unique, not secret. */
static pthread_mutex_t id_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t id_state;
static bool id_seeded;

static void seed_ids(void)
{
  uint64_t s = 0;
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd < 0 || read(fd, &s, sizeof(s)) != (ssize_t)sizeof(s)) {
    s = (uint64_t)lw_now_ms() ^ ((uint64_t)getpid() << 32);
  }
  if (fd >= 0) {
    close(fd);
  }
  id_state = s;
  id_seeded = true;
}

void lw_job_new_id(char out[17])
{
  pthread_mutex_lock(&id_lock);
  if (!id_seeded) {
    seed_ids();
  }
  uint64_t z = (id_state += 0x9e3779b97f4a7c15ULL);
  pthread_mutex_unlock(&id_lock);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  snprintf(out, 17, "%016llx", (unsigned long long)z);
}

static const char *field_string(json_t *obj, const char *key)
{
  const char *s = json_string_value(json_object_get(obj, key));
  return s ? s : "";
}

/* Points the borrowed fields at obj and renders raw. */
static LwStatus job_fill(LwJob *job, bool render, LwError *err)
{
  job->id = field_string(job->obj, "id");
  job->stage = field_string(job->obj, "stage");
  job->seed = field_string(job->obj, "seed");
  job->harvest = field_string(job->obj, "harvest");
  json_t *a = json_object_get(job->obj, "attempt");
  job->attempt = json_is_integer(a) ? json_integer_value(a) : 0;
  json_t *q = json_object_get(job->obj, "queued");
  job->queued_ms = json_is_integer(q) ? json_integer_value(q) : 0;
  if (render) {
    job->raw = json_dumps(job->obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!job->raw) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
  }
  return LW_OK;
}

static bool valid_name(const char *s)
{
  if (!*s || strlen(s) > 64) {
    return false;
  }
  for (; *s; ++s) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '-')) {
      return false;
    }
  }
  return true;
}

LwJob *lw_job_new(const char *stage, const char *seed, const char *harvest,
                  const json_t *extra, LwError *err)
{
  if (!stage || !valid_name(stage)) {
    lw_error_set(err, LW_ERR_USAGE, "bad stage name '%s'", stage ? stage : "");
    return NULL;
  }
  if (extra && !json_is_object(extra)) {
    lw_error_set(err, LW_ERR_USAGE, "job extra fields must be a JSON object");
    return NULL;
  }
  LwJob *job = calloc(1, sizeof(*job));
  char id[17];
  lw_job_new_id(id);
  job->obj = json_object();
  if (!job->obj) {
    free(job);
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    return NULL;
  }
  json_object_set_new(job->obj, "id", json_string(id));
  json_object_set_new(job->obj, "stage", json_string(stage));
  json_object_set_new(job->obj, "seed", json_string(seed ? seed : ""));
  json_object_set_new(job->obj, "harvest", json_string(harvest ? harvest : ""));
  json_object_set_new(job->obj, "attempt", json_integer(0));
  json_object_set_new(job->obj, "queued", json_integer(lw_now_ms()));
  if (extra) {
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)extra, key, value) {
      if (strcmp(key, "stage") && strcmp(key, "seed") && strcmp(key, "harvest") &&
          strcmp(key, "id")) {
        json_object_set(job->obj, key, value);
      }
    }
  }
  if (json_string_value(json_object_get(job->obj, "seed")) == NULL) {
    lw_job_free(job);
    lw_error_set(err, LW_ERR_USAGE, "seed must be a string");
    return NULL;
  }
  if (job_fill(job, true, err) != LW_OK) {
    lw_job_free(job);
    return NULL;
  }
  return job;
}

LwStatus lw_job_parse(const char *raw, size_t len, LwJob **out, LwError *err)
{
  *out = NULL;
  json_error_t jerr;
  json_t *obj = json_loadb(raw, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!obj) {
    return lw_error_set(err, LW_ERR_FORMAT, "job is not JSON: %s", jerr.text);
  }
  if (!json_is_object(obj) || !json_is_string(json_object_get(obj, "stage"))) {
    json_decref(obj);
    return lw_error_set(err, LW_ERR_FORMAT, "job is not an object with a stage");
  }
  LwJob *job = calloc(1, sizeof(*job));
  char *copy = malloc(len + 1);
  if (!job || !copy) {
    free(job);
    free(copy);
    json_decref(obj);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  memcpy(copy, raw, len);
  copy[len] = '\0';
  job->raw = copy;
  job->obj = obj;
  job_fill(job, false, err);
  *out = job;
  return LW_OK;
}

LwJob *lw_job_with(const LwJob *job, const json_t *changes, LwError *err)
{
  LwJob *copy = calloc(1, sizeof(*copy));
  if (!copy || !(copy->obj = json_deep_copy(job->obj))) {
    free(copy);
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    return NULL;
  }
  if (changes) {
    json_object_update(copy->obj, (json_t *)changes);
  }
  if (job_fill(copy, true, err) != LW_OK) {
    lw_job_free(copy);
    return NULL;
  }
  return copy;
}

long long lw_job_get_int(const LwJob *job, const char *field, long long def)
{
  json_t *v = json_object_get(job->obj, field);
  return json_is_integer(v) ? json_integer_value(v) : def;
}

const char *lw_job_get_string(const LwJob *job, const char *field, const char *def)
{
  const char *s = json_string_value(json_object_get(job->obj, field));
  return s ? s : def;
}

void lw_job_free(LwJob *job)
{
  if (!job) {
    return;
  }
  free(job->raw);
  json_decref(job->obj);
  free(job);
}

void lw_job_member(const LwJob *job, char out[LW_JOB_MEMBER_MAX])
{
  if (!*job->seed || !*job->harvest) {
    snprintf(out, LW_JOB_MEMBER_MAX, "%s", job->seed);
  } else {
    snprintf(out, LW_JOB_MEMBER_MAX, "%s %s", job->seed, job->harvest);
  }
}
