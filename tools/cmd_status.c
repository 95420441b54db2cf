/*
 * lodwash status [--json] [--watch [--every S]]: queues, workers, seeds and
 * providers at a glance. --watch prints it again every S seconds (2 by
 * default), clearing the terminal first when stdout is one, until Ctrl-C;
 * with --json, only JSON: one report a line.
 */
#include <jansson.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "report/status_report.h"
#include "report/status_text.h"
#include "tools/commands.h"

static volatile sig_atomic_t watch_stop = 0;

static void on_interrupt(int sig)
{
  (void)sig;
  watch_stop = 1;
}

/* One report, printed; lines: JSON on one line (--watch --json: JSON
 * Lines, one report a line, for jq and line readers). */
static int show(LwTool *tool, bool json, bool lines)
{
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  json_t *status = NULL;
  LwError err;
  if (lw_status_report(c, tool->config, &status, &err) != LW_OK) {
    return lw_tool_fail("status: %s", err.message);
  }
  if (json && lines) {
    char *text = json_dumps(status, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (text) {
      puts(text);
      free(text);
    }
  } else if (json) {
    lw_tool_print_json(status);
  } else {
    lw_status_text_print(stdout, status);
  }
  json_decref(status);
  return LW_EXIT_OK;
}

/* Shows the report every `every` seconds until SIGINT or SIGTERM; a lost
 * Redis is said and tried again. */
static int watch(LwTool *tool, bool json, long long every)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  bool tty = isatty(STDOUT_FILENO);
  while (!watch_stop) {
    if (tty && !json) {
      fputs("\033[H\033[2J", stdout);
    }
    if (!json) { /* --json: only the reports, one JSON document each */
      char now[LW_DATETIME_BUF];
      printf("lodwash status, %s (every %llds; Ctrl-C stops)\n\n",
             lw_datetime_format_ms(lw_datetime_now_usec() / 1000, now), every);
    }
    if (show(tool, json, true) != LW_EXIT_OK) {
      lw_records_close(tool->redis);
      tool->redis = NULL;
    }
    fflush(stdout);
    for (long long ms = 0; ms < every * 1000 && !watch_stop; ms += 100) {
      struct timespec ts = {0, 100 * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  return LW_EXIT_OK;
}

int lw_cmd_status(LwTool *tool, int argc, char **argv)
{
  bool json = false, watching = false;
  long long every = 2;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (!strcmp(argv[i], "--watch")) {
      watching = true;
    } else if (!strcmp(argv[i], "--every") && i + 1 < argc) {
      if (!lw_parse_size(argv[++i], &every) || every < 1 || every > 86400) {
        return lw_tool_usage_error(
          "status: --every '%s' is not a number of seconds (1 to 86400)", argv[i]);
      }
    } else {
      return lw_tool_usage_error("status: unexpected argument '%s'", argv[i]);
    }
  }
  return watching ? watch(tool, json, every) : show(tool, json, false);
}
