/*
 * lodwash-worker: runs jobs of the stages it serves until stopped.
 * SIGTERM or SIGINT: the current job is finished or handed back, exit 0.
 * A job running past --job-time-limit is failed and the process exits 3.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/redis.h"
#include "workers/stage.h"
#include "workers/worker.h"

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig)
{
  (void)sig;
  stop_requested = 1;
}

static void install_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

/* What the worker does and its stages, for --help, in help. */
static const char *stages_help(LwHelpText *help)
{
  lw_help_add(help, "Takes jobs from Redis and runs them. Stages:");
  for (size_t i = 0; i < lw_stage_count; ++i) {
    lw_help_add(help, "\n  %-10s %s", lw_stages[i].name, lw_stages[i].doc);
  }
  return help->text;
}

int main(int argc, char **argv)
{
  const char *stages = NULL;
  bool exit_when_idle = false;
  LwOption options[] = {
    {"stages", LW_OPT_STRING, &stages, "LIST",
     "comma-separated stages to serve, in order of preference (default: all, a dump's later stages first)",
     "LODWASH_STAGES"},
    {"exit-when-idle", LW_OPT_BOOL, &exit_when_idle, NULL,
     "exit once nothing of those stages is queued, delayed or in flight", NULL},
  };
  LwHelpText help = {.len = 0};
  LwProgram prog = {"lodwash-worker", "[OPTIONS]", stages_help(&help), options, 2};
  LwConfig cfg;
  LwError err;
  int first = 0;
  LwStatus st = lw_config_parse(&cfg, argc, argv, &prog, &first, &err);
  if (st == LW_NOTHING) {
    lw_config_free(&cfg);
    return 0;
  }
  if (st == LW_OK && first < argc) {
    st = lw_error_set(&err, LW_ERR_USAGE, "unexpected argument '%s'", argv[first]);
  }
  const char *names[64];
  size_t n_names = 0;
  if (st == LW_OK) {
    n_names = lw_worker_parse_stages(stages, names, 64, &err);
    st = n_names ? LW_OK : LW_ERR_USAGE;
  }
  LwRedisUrl url;
  if (st == LW_OK) {
    st = lw_redis_url_parse(cfg.redis_url, &url, &err);
  }
  if (st != LW_OK) {
    fprintf(stderr, "lodwash-worker: %s\n", err.message);
    lw_config_free(&cfg);
    return 2;
  }
  lw_log_init("lodwash-worker", cfg.log_level, cfg.log_json);
  install_signals();
  LwWorkerOptions opts = {&cfg, names, n_names, exit_when_idle, &stop_requested};
  int code = lw_worker_run(&opts);
  lw_config_free(&cfg);
  return code;
}
