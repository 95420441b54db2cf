#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "graph_store/graph_store.h"

#ifndef LODWASH_VERSION
#define LODWASH_VERSION "0"
#endif

typedef enum { KIND_STRING, KIND_INT, KIND_BOOL, KIND_LEVEL } Kind;

/* One row per shared setting: the flag, the variable (NULL: derived from the
 * flag), where it lives in LwConfig, its default and its help line. */
typedef struct {
  const char *flag;
  const char *env;
  Kind kind;
  size_t offset;
  const char *def;
  const char *arg;
  const char *help;
} Setting;

#define OFF(field) offsetof(LwConfig, field)

static const Setting settings[] = {
  {"redis", NULL, KIND_STRING, OFF(redis_url), "redis://127.0.0.1:6379/0", "URL",
   "Redis server: redis://[[user]:password@]host[:port][/db], or unix:///path/to/redis.sock[?db=N]"},
  {"prefix", NULL, KIND_STRING, OFF(prefix), "lodwash:", "PREFIX",
   "prefix of every Redis key"},
  {"data", NULL, KIND_STRING, OFF(data_dir), "./data", "DIR", "shared data directory"},
  {"registry", NULL, KIND_STRING, OFF(registry), "registry.yaml", "FILE",
   "provider registry"},
  {"store", NULL, KIND_STRING, OFF(store), "files", "STORE",
   "triple store: 'files' or a SPARQL 1.1 endpoint URL"},
  {"store-gsp", NULL, KIND_STRING, OFF(store_gsp), "", "URL",
   "Graph Store Protocol endpoint of the SPARQL store (\"\": Virtuoso's, beside --store)"},
  {"store-mode", NULL, KIND_STRING, OFF(store_mode), "gsp", "MODE",
   "how the sparql store inserts: 'gsp' (Graph Store POST) or 'update' (INSERT DATA only)"},
  {"store-connections", NULL, KIND_INT, OFF(store_connections), "2", "N",
   "requests the sparql store's import has in flight at once, each on its own connection"},
  {"store-user", NULL, KIND_STRING, OFF(store_user), "", "USER",
   "SPARQL endpoint user (digest or basic authentication)"},
  {"store-password", NULL, KIND_STRING, OFF(store_password), "", "PASSWORD",
   "SPARQL endpoint password"},
  {"graph-base", NULL, KIND_STRING, OFF(graph_base), "http://lodwash.example.org/graph",
   "IRI", "graph IRI of a provider is IRI/NAME"},
  {"allow-net", NULL, KIND_STRING, OFF(allow_net), "", "LIST",
   "addresses or CIDR blocks, each optionally with :PORT, that may be fetched although private or loopback"},
  {"contact", NULL, KIND_STRING, OFF(contact), "", "URL",
   "contact URL sent in the User-Agent"},
  {"download-max-bytes", NULL, KIND_INT, OFF(download_max_bytes), "2G", "BYTES",
   "largest download"},
  {"connect-timeout", NULL, KIND_INT, OFF(connect_timeout_s), "30", "SECONDS",
   "TCP/TLS connect timeout"},
  {"low-speed-limit", NULL, KIND_INT, OFF(low_speed_limit), "1024", "BYTES",
   "abort a download slower than this many bytes/s ..."},
  {"low-speed-time", NULL, KIND_INT, OFF(low_speed_time_s), "60", "SECONDS",
   "... for this long"},
  {"total-timeout", NULL, KIND_INT, OFF(total_timeout_s), "3600", "SECONDS",
   "longest download"},
  {"max-redirects", NULL, KIND_INT, OFF(max_redirects), "10", "N", "redirects followed"},
  {"per-host-concurrency", NULL, KIND_INT, OFF(per_host_concurrency), "2", "N",
   "downloads at once from one host"},
  {"host-interval-ms", NULL, KIND_INT, OFF(host_interval_ms), "1000", "MS",
   "least time between two requests to one host (robots.txt Crawl-delay may ask more)"},
  {"robots-ttl", NULL, KIND_INT, OFF(robots_ttl_s), "86400", "SECONDS",
   "how long a host's robots.txt is kept (0: robots.txt not read)"},
  {"download-workers", NULL, KIND_INT, OFF(download_workers), "0", "N",
   "downloads at once over all workers, so slow hosts leave workers for other stages (0: no cap)"},
  {"download-transfers", NULL, KIND_INT, OFF(download_transfers), "16", "N",
   "downloads at once in one worker: a slow host holds a transfer, not the worker (1: one at a time)"},
  {"archive-max-entries", NULL, KIND_INT, OFF(archive_max_entries), "100000", "N",
   "entries of one archive"},
  {"archive-max-bytes", NULL, KIND_INT, OFF(archive_max_bytes), "20G", "BYTES",
   "expanded size of one archive"},
  {"archive-max-ratio", NULL, KIND_INT, OFF(archive_max_ratio), "200", "N",
   "expanded / compressed size of one archive"},
  {"archive-max-depth", NULL, KIND_INT, OFF(archive_max_depth), "8", "N",
   "nested archives"},
  {"harvest-max-bytes", NULL, KIND_INT, OFF(harvest_max_bytes), "64G", "BYTES",
   "bytes all archives of one harvest may expand, across every level (0: no cap)"},
  {"harvest-max-files", NULL, KIND_INT, OFF(harvest_max_files), "1000000", "N",
   "files all archives of one harvest may create, across every level (0: no cap)"},
  {"unpacked-max-bytes", NULL, KIND_INT, OFF(unpacked_max_bytes), "128G", "BYTES",
   "bytes the archives of all harvests kept may hold together, besides each harvest's "
   "budget (0: no cap)"},
  {"sort-memory", NULL, KIND_INT, OFF(sort_memory_bytes), "256M", "BYTES",
   "memory budget of the parse stage's external sort"},
  {"max-errors-kept", NULL, KIND_INT, OFF(max_errors_kept), "100", "N",
   "syntax errors recorded per file"},
  {"context-cache-max-bytes", NULL, KIND_INT, OFF(context_cache_max_bytes), "64M", "BYTES",
   "JSON-LD remote contexts cached in Redis, in all (0: no cap)"},
  {"heartbeat-ttl", NULL, KIND_INT, OFF(heartbeat_ttl_s), "30", "SECONDS",
   "a worker silent this long is dead and loses its jobs"},
  {"retry-base-ms", NULL, KIND_INT, OFF(retry_base_ms), "10000", "MS",
   "first retry delay (doubles with each attempt)"},
  {"retry-max-ms", NULL, KIND_INT, OFF(retry_max_ms), "3600000", "MS",
   "longest retry delay"},
  {"max-attempts", NULL, KIND_INT, OFF(max_attempts), "5", "N",
   "runs of a job before it goes to the dead list"},
  {"job-time-limit", NULL, KIND_INT, OFF(job_time_limit_s), "21600", "SECONDS",
   "a job running longer fails and its worker exits, to be restarted (0: no limit)"},
  {"harvest-timeout", NULL, KIND_INT, OFF(harvest_timeout_s), "3600", "SECONDS",
   "a harvest with no file finished for this long fails (and is tried again later)"},
  {"poll-max-ms", NULL, KIND_INT, OFF(poll_max_ms), "200", "MS",
   "longest sleep of an idle worker between queue checks"},
  {"interval", NULL, KIND_INT, OFF(interval_s), "60", "SECONDS",
   "seconds between scheduler cycles"},
  {"keep-harvests", NULL, KIND_INT, OFF(keep_harvests), "10", "N",
   "harvest records kept per provider (older ones are removed with their changesets)"},
  {"gc-grace", NULL, KIND_INT, OFF(gc_grace_s), "86400", "SECONDS",
   "seeds, clean records and files untouched this long may be removed once nothing needs them"},
  {"gc-interval", NULL, KIND_INT, OFF(gc_interval_s), "3600", "SECONDS",
   "the scheduler removes what is no longer needed this often (0: never)"},
  {"dead-max", NULL, KIND_INT, OFF(dead_max), "10000", "N",
   "dead jobs kept per stage, the oldest dropped (0: all)"},
  {"void-concurrency", NULL, KIND_INT, OFF(void_concurrency), "64", "N",
   "VoID files the scheduler fetches at once"},
  {"source-max-datasets", NULL, KIND_INT, OFF(source_max_datasets), "100000", "N",
   "datasets of one catalogue, CKAN site or sitemap"},
  {"source-max-pages", NULL, KIND_INT, OFF(source_max_pages), "10000", "N",
   "documents read in one visit of a catalogue, CKAN site or sitemap (pages, sitemaps)"},
  {"source-max-bytes", NULL, KIND_INT, OFF(source_max_bytes), "1G", "BYTES",
   "bytes of all those documents together"},
  {"source-max-dumps", NULL, KIND_INT, OFF(source_max_dumps), "100000", "N",
   "dumps (and pages of a SPARQL endpoint) one visit may find"},
  {"sparql-page-size", NULL, KIND_INT, OFF(sparql_page_size), "50000", "N",
   "triples in one page of a sparql: provider's CONSTRUCT (one dump file each)"},
  {"seed-interval", NULL, KIND_INT, OFF(seed_interval_s), "8640000", "SECONDS",
   "a dump not re-checked for this long is downloaded again (conditionally); a provider's "
   "registry interval wins (0: never)"},
  {"log-level", NULL, KIND_LEVEL, OFF(log_level), "info", "LEVEL",
   "error, warn, info or debug"},
  {"log-json", NULL, KIND_BOOL, OFF(log_json), "0", NULL, "log one JSON object per line"},
};

#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))

/* LODWASH_ + the flag upper-cased, '-' -> '_'. */
static void env_name(const char *flag, const char *given, char *buf, size_t size)
{
  if (given) {
    snprintf(buf, size, "%s", given);
    return;
  }
  size_t n = (size_t)snprintf(buf, size, "LODWASH_");
  for (; *flag && n + 1 < size; ++flag) {
    buf[n++] = *flag == '-' ? '_' : (char)toupper((unsigned char)*flag);
  }
  buf[n] = '\0';
}

bool lw_parse_size(const char *text, long long *out)
{
  if (!text || !isdigit((unsigned char)*text)) {
    return false;
  }
  errno = 0;
  char *end = NULL;
  long long v = strtoll(text, &end, 10);
  if (errno) {
    return false;
  }
  long long mult = 1;
  if (*end == 'k' || *end == 'K') {
    mult = 1024LL;
  } else if (*end == 'M') {
    mult = 1024LL * 1024;
  } else if (*end == 'G') {
    mult = 1024LL * 1024 * 1024;
  }
  if (mult != 1) {
    ++end;
  }
  if (*end || v > LLONG_MAX / mult) {
    return false;
  }
  *out = v * mult;
  return true;
}

static bool parse_bool(const char *text, bool *out)
{
  if (!strcmp(text, "1") || !strcmp(text, "true") || !strcmp(text, "yes")) {
    *out = true;
  } else if (!strcmp(text, "0") || !strcmp(text, "false") || !strcmp(text, "no") ||
             !*text) {
    *out = false;
  } else {
    return false;
  }
  return true;
}

static LwStatus apply(LwConfig *cfg, const Setting *s, const char *value,
                      const char *source, LwError *err)
{
  void *field = (char *)cfg + s->offset;
  switch (s->kind) {
  case KIND_STRING: {
    char *copy = strdup(value);
    if (!copy) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    free(*(char **)field);
    *(char **)field = copy;
    return LW_OK;
  }
  case KIND_INT:
    if (!lw_parse_size(value, (long long *)field)) {
      return lw_error_set(
        err, LW_ERR_USAGE,
        "%s: '%s' is not a number (digits, optionally followed by k, M or G)", source,
        value);
    }
    return LW_OK;
  case KIND_BOOL:
    if (!parse_bool(value, (bool *)field)) {
      return lw_error_set(err, LW_ERR_USAGE, "%s: '%s' is not 0 or 1", source, value);
    }
    return LW_OK;
  case KIND_LEVEL:
    if (!lw_log_level_parse(value, (LwLogLevel *)field)) {
      return lw_error_set(err, LW_ERR_USAGE, "%s: '%s' is not error, warn, info or debug",
                          source, value);
    }
    return LW_OK;
  }
  return LW_OK;
}

static const Setting *find_setting(const char *flag)
{
  for (size_t i = 0; i < N_SETTINGS; ++i) {
    if (!strcmp(settings[i].flag, flag)) {
      return &settings[i];
    }
  }
  return NULL;
}

bool lw_config_is_setting(const char *flag, bool *takes_value)
{
  const Setting *s = find_setting(flag);
  if (s && takes_value) {
    *takes_value = s->kind != KIND_BOOL;
  }
  return s != NULL;
}

void lw_config_init(LwConfig *cfg)
{
  memset(cfg, 0, sizeof(*cfg));
  for (size_t i = 0; i < N_SETTINGS; ++i) {
    LwStatus st = apply(cfg, &settings[i], settings[i].def, "default", NULL);
    (void)st; /* the built-in defaults are valid */
  }
}

LwStatus lw_config_set(LwConfig *cfg, const char *name, const char *value, LwError *err)
{
  const Setting *s = find_setting(name);
  if (!s) {
    return lw_error_set(err, LW_ERR_USAGE, "unknown setting '%s'", name);
  }
  char source[96];
  snprintf(source, sizeof(source), "--%s", name);
  return apply(cfg, s, value, source, err);
}

LwStatus lw_config_from_env(LwConfig *cfg, LwError *err)
{
  for (size_t i = 0; i < N_SETTINGS; ++i) {
    char name[96];
    env_name(settings[i].flag, settings[i].env, name, sizeof(name));
    const char *value = getenv(name);
    if (value) {
      LW_TRY(apply(cfg, &settings[i], value, name, err));
    }
  }
  return LW_OK;
}

static LwStatus apply_option(const LwOption *o, const char *value, const char *source,
                             LwError *err)
{
  switch (o->type) {
  case LW_OPT_STRING:
    *(const char **)o->target = value;
    return LW_OK;
  case LW_OPT_INT:
    if (!lw_parse_size(value, (long long *)o->target)) {
      return lw_error_set(
        err, LW_ERR_USAGE,
        "%s: '%s' is not a number (digits, optionally followed by k, M or G)", source,
        value);
    }
    return LW_OK;
  case LW_OPT_BOOL:
    if (!parse_bool(value, (bool *)o->target)) {
      return lw_error_set(err, LW_ERR_USAGE, "%s: '%s' is not 0 or 1", source, value);
    }
    return LW_OK;
  }
  return LW_OK;
}

static LwStatus options_from_env(const LwProgram *prog, LwError *err)
{
  for (size_t i = 0; i < prog->n_options; ++i) {
    const LwOption *o = &prog->options[i];
    const char *value = o->env ? getenv(o->env) : NULL;
    if (value) {
      LW_TRY(apply_option(o, value, o->env, err));
    }
  }
  return LW_OK;
}

static void usage_line(FILE *out, const char *flag, const char *arg, const char *help,
                       const char *env, const char *def)
{
  char left[80];
  snprintf(left, sizeof(left), "--%s%s%s", flag, arg ? " " : "", arg ? arg : "");
  fprintf(out, "  %-32s %s", left, help);
  if (env) {
    fprintf(out, " [%s", env);
    if (def && *def && strcmp(def, "0") != 0) {
      fprintf(out, ", default %s", def);
    }
    fputc(']', out);
  }
  fputc('\n', out);
}

void lw_help_add(LwHelpText *help, const char *fmt, ...)
{
  if (help->len >= sizeof(help->text)) {
    return;
  }
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(help->text + help->len, sizeof(help->text) - help->len, fmt, args);
  va_end(args);
  help->len += n > 0 ? (size_t)n : 0;
}

void lw_config_usage(FILE *out, const LwProgram *prog)
{
  fprintf(out, "Usage: %s %s\n", prog->name, prog->synopsis ? prog->synopsis : "[OPTIONS]");
  if (prog->description) {
    fprintf(out, "\n%s\n", prog->description);
  }
  if (prog->n_options) {
    fprintf(out, "\nOptions of %s:\n", prog->name);
    for (size_t i = 0; i < prog->n_options; ++i) {
      const LwOption *o = &prog->options[i];
      usage_line(out, o->name, o->type == LW_OPT_BOOL ? NULL : o->arg, o->help, o->env,
                 NULL);
    }
  }
  fprintf(out, "\nCommon options (environment variable, default):\n");
  for (size_t i = 0; i < N_SETTINGS; ++i) {
    char env[96];
    env_name(settings[i].flag, settings[i].env, env, sizeof(env));
    usage_line(out, settings[i].flag, settings[i].arg, settings[i].help, env,
               settings[i].def);
  }
  usage_line(out, "help", NULL, "show this help and exit", NULL, NULL);
  usage_line(out, "version", NULL, "show the version and exit", NULL, NULL);
}

enum { OPT_HELP = 'h', OPT_VERSION = 'V', OPT_SHARED = 1000, OPT_PROGRAM = 2000 };

LwStatus lw_config_parse(LwConfig *cfg, int argc, char **argv, const LwProgram *prog,
                         int *first_arg, LwError *err)
{
  lw_config_init(cfg);
  *first_arg = argc;
  LW_TRY(lw_config_from_env(cfg, err));
  LW_TRY(options_from_env(prog, err));

  size_t n = N_SETTINGS + prog->n_options + 3;
  struct option *longopts = calloc(n, sizeof(*longopts));
  if (!longopts) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < N_SETTINGS; ++i, ++k) {
    longopts[k] = (struct option){
      settings[i].flag, settings[i].kind == KIND_BOOL ? no_argument : required_argument,
      NULL, OPT_SHARED + (int)i};
  }
  for (size_t i = 0; i < prog->n_options; ++i, ++k) {
    const LwOption *o = &prog->options[i];
    longopts[k] = (struct option){o->name,
                                  o->type == LW_OPT_BOOL ? no_argument : required_argument,
                                  NULL, OPT_PROGRAM + (int)i};
  }
  longopts[k++] = (struct option){"help", no_argument, NULL, OPT_HELP};
  longopts[k++] = (struct option){"version", no_argument, NULL, OPT_VERSION};

  LwStatus status = LW_OK;
  optind = 0; /* GNU: re-initialize, so parsing may run more than once */
  opterr = 0;
  int c;
  while (status == LW_OK && (c = getopt_long(argc, argv, "+:hV", longopts, NULL)) != -1) {
    const char *bad = argv[optind - 1] ? argv[optind - 1] : "?";
    if (c == OPT_HELP) {
      lw_config_usage(stdout, prog);
      status = LW_NOTHING;
    } else if (c == OPT_VERSION) {
      printf("%s %s\n", prog->name, LODWASH_VERSION);
      status = LW_NOTHING;
    } else if (c >= OPT_PROGRAM) {
      const LwOption *o = &prog->options[c - OPT_PROGRAM];
      char source[96];
      snprintf(source, sizeof(source), "--%s", o->name);
      status = apply_option(o, o->type == LW_OPT_BOOL ? "1" : optarg, source, err);
    } else if (c >= OPT_SHARED) {
      const Setting *s = &settings[c - OPT_SHARED];
      char source[96];
      snprintf(source, sizeof(source), "--%s", s->flag);
      status = apply(cfg, s, s->kind == KIND_BOOL ? "1" : optarg, source, err);
    } else if (c == ':') {
      status = lw_error_set(err, LW_ERR_USAGE, "option '%s' needs a value", bad);
    } else {
      status = lw_error_set(err, LW_ERR_USAGE, "unknown option '%s' (see --help)", bad);
    }
  }
  free(longopts);
  *first_arg = optind;
  optind = 0;
  if (status == LW_OK) {
    status = lw_config_check(cfg, err);
  }
  return status;
}

LwStatus lw_config_check(const LwConfig *cfg, LwError *err)
{
  /* settings where 0 would break things rather than mean "none" */
  const struct {
    const char *flag;
    long long value;
  } positive[] = {
    {"heartbeat-ttl", cfg->heartbeat_ttl_s},     {"retry-base-ms", cfg->retry_base_ms},
    {"retry-max-ms", cfg->retry_max_ms},         {"max-attempts", cfg->max_attempts},
    {"poll-max-ms", cfg->poll_max_ms},           {"interval", cfg->interval_s},
    {"sort-memory", cfg->sort_memory_bytes},     {"keep-harvests", cfg->keep_harvests},
    {"void-concurrency", cfg->void_concurrency}, {"store-connections", cfg->store_connections},
    {"source-max-datasets", cfg->source_max_datasets},
    {"source-max-pages", cfg->source_max_pages},
    {"source-max-bytes", cfg->source_max_bytes},
    {"source-max-dumps", cfg->source_max_dumps},
    {"sparql-page-size", cfg->sparql_page_size},
    {"download-transfers", cfg->download_transfers},
  };
  for (size_t i = 0; i < sizeof(positive) / sizeof(positive[0]); ++i) {
    if (positive[i].value < 1) {
      return lw_error_set(err, LW_ERR_USAGE, "--%s must be at least 1", positive[i].flag);
    }
  }
  if (!cfg->prefix || !*cfg->prefix) {
    return lw_error_set(err, LW_ERR_USAGE, "--prefix must not be empty");
  }
  LwSparqlMode mode;
  if (!lw_sparql_mode_parse(cfg->store_mode, &mode)) {
    return lw_error_set(err, LW_ERR_USAGE, "--store-mode: '%s' is not gsp or update",
                        cfg->store_mode);
  }
  /* A bad allow list would fail every download: say so at start instead. */
  LwNetGuard *guard = NULL;
  LwError gerr;
  if (lw_netguard_new(cfg->allow_net, &guard, &gerr) != LW_OK) {
    return lw_error_set(err, LW_ERR_USAGE, "--allow-net: %s", gerr.message);
  }
  lw_netguard_free(guard);
  return LW_OK;
}

void lw_config_user_agent(const LwConfig *cfg, char *buf, size_t size)
{
  if (cfg->contact && *cfg->contact) {
    snprintf(buf, size, "lodwash/%s (+%s)", LODWASH_VERSION, cfg->contact);
  } else {
    snprintf(buf, size, "lodwash/%s", LODWASH_VERSION);
  }
}

void lw_config_free(LwConfig *cfg)
{
  if (!cfg) {
    return;
  }
  for (size_t i = 0; i < N_SETTINGS; ++i) {
    if (settings[i].kind == KIND_STRING) {
      char **field = (char **)((char *)cfg + settings[i].offset);
      free(*field);
      *field = NULL;
    }
  }
}
