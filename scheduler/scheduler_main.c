/*
 * lodwash-scheduler [--registry FILE] [--interval SECONDS] [--once] [OPTIONS]
 *
 * Decides what to harvest (scheduler/scheduler.h). Exit codes: 0 done
 * (--once) or stopped by SIGTERM/SIGINT, 1 a fatal error, 2 bad usage,
 * 3 --once could not get the lease (another scheduler is active).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "scheduler/scheduler.h"

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig)
{
  (void)sig;
  stop_requested = 1;
}

int main(int argc, char **argv)
{
  bool once = false;
  const LwOption options[] = {
      {"once", LW_OPT_BOOL, &once, NULL,
       "run one cycle and exit (for scripts and tests)", "LODWASH_ONCE"},
  };
  const LwProgram prog = {
      "lodwash-scheduler", "[OPTIONS]",
      "Every --interval seconds: reads the registry (--registry), visits each "
      "provider's VoID file, starts a harvest when its dcterms:modified moved, "
      "and runs the periodic duties (dead workers' jobs, retries, stale seeds, "
      "export and status jobs). One scheduler is active at a time; another "
      "waits and takes over within one interval.",
      options, sizeof(options) / sizeof(*options)};
  LwConfig cfg;
  LwError err;
  lw_error_clear(&err);
  int first = 0;
  LwStatus st = lw_config_parse(&cfg, argc, argv, &prog, &first, &err);
  if (st == LW_NOTHING) {
    lw_config_free(&cfg);
    return 0;
  }
  if (st != LW_OK || first < argc) {
    fprintf(stderr, "lodwash-scheduler: %s\n",
            st != LW_OK ? err.message : "unexpected argument (see --help)");
    lw_config_free(&cfg);
    return 2;
  }
  if (cfg.interval_s < 1) {
    fprintf(stderr, "lodwash-scheduler: --interval must be at least 1 second\n");
    lw_config_free(&cfg);
    return 2;
  }
  lw_log_init("lodwash-scheduler", cfg.log_level, cfg.log_json);

  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);

  LwScheduler *s = lw_scheduler_new(&cfg);
  if (!s) {
    fprintf(stderr, "lodwash-scheduler: out of memory\n");
    lw_config_free(&cfg);
    return 1;
  }
  lw_info("scheduler=%s registry=%s interval=%lld once=%s", lw_scheduler_id(s),
          cfg.registry, cfg.interval_s, once ? "yes" : "no");
  int code = lw_scheduler_run(s, once, &stop_requested);
  lw_scheduler_free(s);
  lw_config_free(&cfg);
  return code;
}
