/*
 * lodwash-scheduler [--registry FILE] [--interval SECONDS] [--once] [OPTIONS]
 *
 * Decides what to harvest (scheduler/scheduler.h). Exit codes: 0 done
 * (--once) or stopped by SIGTERM/SIGINT, 1 a fatal error, 2 bad usage,
 * 3 --once could not get the lease (another scheduler is active).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/redis.h"
#include "scheduler/observe.h"
#include "scheduler/scheduler.h"

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig)
{
  (void)sig;
  stop_requested = 1;
}

/* The admin token: the first line of file, else LODWASH_ADMIN_TOKEN, else ""
 * (read-only pages). Never a command-line argument: `ps` shows those to
 * every user of the machine. Returns false (said on stderr) when the file
 * cannot be read or is empty. */
static bool admin_token_read(const char *file, char *token, size_t size)
{
  const char *env = getenv("LODWASH_ADMIN_TOKEN");
  snprintf(token, size, "%s", env ? env : "");
  if (!file || !*file) {
    return true;
  }
  FILE *f = fopen(file, "r");
  bool ok = f && fgets(token, (int)size, f);
  if (f) {
    fclose(f);
  }
  token[ok ? strcspn(token, "\r\n") : 0] = '\0';
  if (!ok || !*token) {
    fprintf(stderr, "lodwash-scheduler: --admin-token-file %s: %s\n", file,
            f ? "empty (the token is its first line)" : "cannot be read");
    return false;
  }
  return true;
}

/* An --admin-token given the old way is refused with what to do instead. */
static bool admin_token_on_command_line(int argc, char **argv)
{
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--admin-token") || !strncmp(argv[i], "--admin-token=", 14)) {
      fprintf(stderr, "lodwash-scheduler: --admin-token would show the token in ps: "
                      "use --admin-token-file FILE or LODWASH_ADMIN_TOKEN\n");
      return true;
    }
  }
  return false;
}

int main(int argc, char **argv)
{
  bool once = false;
  long long metrics_port = 0;
  const char *metrics_bind = "127.0.0.1";
  const char *admin_token_file = "";
  static char admin_token[512];
  const LwOption options[] = {
    {"once", LW_OPT_BOOL, &once, NULL, "run one cycle and exit (for scripts and tests)",
     "LODWASH_ONCE"},
    {"metrics-port", LW_OPT_INT, &metrics_port, "PORT",
     "serve the dashboard, /metrics, /status and /healthz over HTTP on this port (0: off)",
     "LODWASH_METRICS_PORT"},
    {"metrics-bind", LW_OPT_STRING, &metrics_bind, "ADDRESS",
     "address the HTTP pages listen on (default 127.0.0.1; 0.0.0.0 in a container)",
     "LODWASH_METRICS_BIND"},
    {"admin-token-file", LW_OPT_STRING, &admin_token_file, "FILE",
     "file whose first line is the token the dashboard's actions need (retry, "
     "harvest, pause, hold, ...); or LODWASH_ADMIN_TOKEN; neither: the pages are "
     "read-only",
     "LODWASH_ADMIN_TOKEN_FILE"},
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
  if (admin_token_on_command_line(argc, argv)) {
    return 2;
  }
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
  if (metrics_port > 65535) {
    fprintf(stderr,
            "lodwash-scheduler: --metrics-port %lld is not a port (1 to 65535; 0: off)\n",
            metrics_port);
    lw_config_free(&cfg);
    return 2;
  }
  LwRedisUrl url;
  if (lw_redis_url_parse(cfg.redis_url, &url, &err) != LW_OK) {
    /* A URL that cannot work stops the scheduler here, rather than every
     * cycle failing (and printing it) for ever. */
    fprintf(stderr, "lodwash-scheduler: %s\n", err.message);
    lw_config_free(&cfg);
    return 2;
  }
  if (!admin_token_read(admin_token_file, admin_token, sizeof(admin_token))) {
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

  LwHttpService *pages = NULL;
  LwDashboard dashboard = {NULL, NULL};
  if (metrics_port > 0) {
    dashboard.cfg = &cfg;
    dashboard.admin_token = admin_token;
    pages = lw_observe_start(&dashboard, metrics_bind, (int)metrics_port, &err);
    if (!pages) {
      fprintf(stderr, "lodwash-scheduler: %s\n", err.message);
      lw_config_free(&cfg);
      return err.status == LW_ERR_USAGE ? 2 : 1;
    }
    lw_info("scheduler pages=http://%s:%d/ paths=/,/metrics,/status,/healthz actions=%s",
            metrics_bind, lw_http_service_port(pages), *admin_token ? "on" : "off");
  }
  LwScheduler *s = lw_scheduler_new(&cfg);
  if (!s) {
    fprintf(stderr, "lodwash-scheduler: out of memory\n");
    lw_http_service_stop(pages);
    lw_config_free(&cfg);
    return 1;
  }
  lw_info("scheduler=%s registry=%s interval=%lld once=%s", lw_scheduler_id(s),
          cfg.registry, cfg.interval_s, once ? "yes" : "no");
  int code = lw_scheduler_run(s, once, &stop_requested);
  lw_scheduler_free(s);
  lw_http_service_stop(pages);
  lw_config_free(&cfg);
  return code;
}
