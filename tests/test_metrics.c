/* /metrics: the Prometheus text carries the same numbers as the status JSON. */
#include "scheduler/metrics.h"

#include <stdlib.h>

#include "tests/support/check.h"

int main(void)
{
  json_error_t jerr;
  json_t *status = json_loads(
      "{\"stages\":{\"download\":{\"queued\":3,\"inflight\":1,\"delayed\":2,\"dead\":0,"
      "\"done\":40,\"failed\":5,\"ms\":1500}},"
      "\"workers\":[{\"id\":\"w1\"},{\"id\":\"w2\"}],"
      "\"seeds\":{\"added\":3,\"parsed\":7},"
      "\"counters\":{\"bytes_downloaded\":1024,\"errors:syntax\":4},"
      "\"providers\":[{\"name\":\"geo\",\"state\":\"idle\",\"harvest_ended\":1700000000000,"
      "\"triples\":99},{\"name\":\"b\\\"ad\",\"state\":\"error\"}]}",
      0, &jerr);
  CHECK(status != NULL);
  char *text = lw_metrics_render(status);
  CHECK(text != NULL);
  if (text) {
    CHECK(strstr(text, "lodwash_jobs{stage=\"download\",state=\"queued\"} 3\n") != NULL);
    CHECK(strstr(text, "lodwash_jobs{stage=\"download\",state=\"inflight\"} 1\n") != NULL);
    CHECK(strstr(text, "lodwash_jobs_done_total{stage=\"download\"} 40\n") != NULL);
    CHECK(strstr(text, "lodwash_jobs_failed_total{stage=\"download\"} 5\n") != NULL);
    CHECK(strstr(text, "lodwash_job_seconds_total{stage=\"download\"} 1.500\n") != NULL);
    CHECK(strstr(text, "lodwash_workers_alive 2\n") != NULL);
    CHECK(strstr(text, "lodwash_seeds{status=\"parsed\"} 7\n") != NULL);
    CHECK(strstr(text, "lodwash_bytes_downloaded_total 1024\n") != NULL);
    CHECK(strstr(text, "lodwash_errors_total{kind=\"syntax\"} 4\n") != NULL);
    CHECK(strstr(text, "lodwash_provider_state{provider=\"geo\",state=\"idle\"} 1\n") != NULL);
    CHECK(strstr(text, "lodwash_provider_state{provider=\"b\\\"ad\",state=\"error\"} 1\n") != NULL);
    CHECK(strstr(text, "lodwash_provider_last_harvest_timestamp_seconds{provider=\"geo\"} 1700000000\n") != NULL);
    CHECK(strstr(text, "lodwash_provider_triples{provider=\"geo\"} 99\n") != NULL);
  }
  free(text);
  json_decref(status);
  json_t *empty = json_object();
  text = lw_metrics_render(empty);
  CHECK(text && strstr(text, "lodwash_workers_alive 0\n"));
  free(text);
  json_decref(empty);
  return lw_test_finish();
}
