/*
 * lodwash's configuration: the settings every program reads (defaults,
 * LODWASH_* environment variables, command-line flags) with one parser, so
 * that every program takes the same flags and prints the same --help.
 * It also reads registry.yaml, the user's list of providers, for the
 * scheduler, the reports and the tool.
 *
 * Uses base, net (to check the address rules) and graph_store (to check the
 * store's mode). Below, one section per module; its code is config/<module>.c.
 */
#ifndef LW_CONFIG_H
#define LW_CONFIG_H

#include "base/base.h"

/* ---- config (config/config.c) ------------------------------------------ */

/*
 * Configuration shared by every lodwash program.
 *
 * Each setting has a default, which a LODWASH_* environment variable
 * overrides (for docker), which a command-line flag overrides. The variable
 * is named after the flag: --download-max-bytes <-> LODWASH_DOWNLOAD_MAX_BYTES
 * (--redis <-> LODWASH_REDIS, --data <-> LODWASH_DATA). Sizes accept
 * the suffixes k, M, G (powers of 1024).
 *
 * One parser (getopt_long) serves every program, so they all take the same
 * flags and print the same --help; a program adds its own flags with an
 * LwOption table:
 *
 *   static const char *stages = NULL; static bool idle = false;
 *   LwOption opts[] = {
 *     {"stages", LW_OPT_STRING, &stages, "LIST", "stages to serve", "LODWASH_STAGES"},
 *     {"exit-when-idle", LW_OPT_BOOL, &idle, NULL, "exit once idle", NULL},
 *   };
 *   LwProgram prog = {"lodwash-worker", "[OPTIONS]", "Runs jobs.", opts, 2};
 *   LwConfig cfg; int first;
 *   LwStatus st = lw_config_parse(&cfg, argc, argv, &prog, &first, &err);
 *   // LW_OK: go on; LW_NOTHING: --help or --version printed, exit 0;
 *   // LW_ERR_USAGE: print err.message, exit 2.
 *
 * Parsing stops at the first non-option argument (argv[first]), so a tool can
 * parse its sub-command's arguments afterwards.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
  /* where things are */
  char *redis_url;      /* --redis: redis://[[user]:password@]host[:port][/db] */
  char *prefix;         /* --prefix: Redis key prefix, "lodwash:" */
  char *data_dir;       /* --data: the shared data directory, "./data" */
  char *registry;       /* --registry: "registry.yaml" */
  char *store;          /* --store: "files" or a SPARQL 1.1 endpoint URL */
  char *store_gsp;      /* --store-gsp: Graph Store endpoint ("" derived) */
  char *store_mode;     /* --store-mode: "gsp" or "update" */
  long long store_connections; /* --store-connections: requests in flight at once */
  char *store_user;     /* --store-user: for the SPARQL endpoint ("" none) */
  char *store_password; /* --store-password */
  char *graph_base;     /* --graph-base: graph IRI = <graph_base>/<provider> */
  char *
    allow_net; /* --allow-net: comma-separated addresses or CIDR blocks, each optionally with :PORT,
                           that may be fetched although private, loopback or
                           link-local ("" = none) */
  char *contact; /* --contact: URL put in the User-Agent ("" = none) */

  /* download limits */
  long long download_max_bytes; /* body size cap */
  long long connect_timeout_s;
  long long low_speed_limit;  /* bytes/s below which ... */
  long long low_speed_time_s; /* ... for this long, a download is aborted */
  long long total_timeout_s;  /* whole transfer */
  long long max_redirects;
  long long per_host_concurrency; /* downloads at once per host */
  long long host_interval_ms;     /* least time between requests to one host */
  long long robots_ttl_s;         /* robots.txt kept this long; 0: not read */
  long long download_workers;     /* downloads at once over all workers; 0: any */
  long long download_transfers;   /* downloads at once in one worker (one thread) */

  /* archive limits */
  long long archive_max_entries;
  long long archive_max_bytes; /* expanded bytes of one archive, in total */
  long long archive_max_ratio; /* expanded / compressed */
  long long archive_max_depth; /* nested archives */
  long long harvest_max_bytes; /* bytes all archives of a harvest may expand */
  long long harvest_max_files; /* files all archives of a harvest may create */
  long long unpacked_max_bytes; /* bytes the archives of all harvests may hold */

  /* parsing */
  long long sort_memory_bytes;       /* external-sort memory budget */
  long long max_errors_kept;         /* syntax errors recorded per file */
  long long context_cache_max_bytes; /* JSON-LD contexts cached in Redis, in all */

  /* queue */
  long long heartbeat_ttl_s;   /* a worker silent this long is dead */
  long long retry_base_ms;     /* first retry delay; doubles per attempt */
  long long retry_max_ms;      /* longest retry delay */
  long long max_attempts;      /* runs of a job before it goes dead */
  long long job_time_limit_s;  /* a job running longer fails, its worker exits */
  long long harvest_timeout_s; /* a harvest without progress this long fails */
  long long poll_max_ms;       /* longest sleep of an idle worker */

  /* scheduler */
  long long interval_s;       /* --interval: seconds between cycles */
  long long void_concurrency; /* VoID fetches at once */
  long long seed_interval_s;  /* re-check a dump after this long; 0: never */
  /* catalogues, CKAN sites, sitemaps, endpoints (sources/sources.h) */
  long long source_max_datasets;
  long long source_max_pages;
  long long source_max_bytes;
  long long source_max_dumps;
  long long sparql_page_size;

  /* retention (queue/retention.h) */
  long long keep_harvests; /* harvest records kept per provider */
  long long gc_grace_s;    /* records and files untouched this long are kept */
  long long gc_interval_s; /* seconds between the scheduler's collections; 0: never */
  long long dead_max;      /* dead jobs kept per stage; 0: all */

  /* logging */
  LwLogLevel log_level; /* --log-level error|warn|info|debug */
  bool log_json;        /* --log-json: one JSON object per line */
} LwConfig;

/* A program-specific flag. target points at the variable it sets:
 *   LW_OPT_STRING: const char * (points into argv or environ, not copied)
 *   LW_OPT_INT:    long long   (size suffixes k, M, G accepted)
 *   LW_OPT_BOOL:   bool        (flag without argument; env "1"/"0") */
typedef enum { LW_OPT_STRING, LW_OPT_INT, LW_OPT_BOOL } LwOptType;

typedef struct {
  const char *name; /* long flag without "--" */
  LwOptType type;
  void *target;
  const char *arg;  /* argument name in --help ("LIST"); NULL for bool */
  const char *help; /* one line */
  const char *env;  /* environment variable giving the default, or NULL */
} LwOption;

typedef struct {
  const char *name;        /* "lodwash-worker" */
  const char *synopsis;    /* "[OPTIONS]" */
  const char *description; /* a paragraph shown by --help, or NULL */
  const LwOption *options; /* program flags, may be NULL */
  size_t n_options;
} LwProgram;

/* A program's --help description that lists things (the tool's commands,
 * the worker's stages), built piece by piece; what does not fit is cut. */
typedef struct {
  char text[4096];
  size_t len;
} LwHelpText;

/* Appends printf-style text to help. */
void lw_help_add(LwHelpText *help, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* Fills cfg with the built-in defaults (allocates the strings). */
void lw_config_init(LwConfig *cfg);

/* Applies the LODWASH_* environment variables to cfg. LW_ERR_USAGE when a
 * value is bad (message names the variable). */
LwStatus lw_config_from_env(LwConfig *cfg, LwError *err);

/* lw_config_init + lw_config_from_env + flags from argv (getopt_long, stops
 * at the first non-option). *first_arg gets the index of the first argument
 * left. Returns LW_OK, LW_NOTHING when --help or --version was printed to
 * stdout (exit 0), or LW_ERR_USAGE with a one-line message (exit 2). On
 * every return cfg must be freed with lw_config_free. */
LwStatus lw_config_parse(LwConfig *cfg, int argc, char **argv, const LwProgram *prog,
                         int *first_arg, LwError *err);

/* Checks values that parse but make no sense (a heartbeat TTL of 0, an
 * empty key prefix, ...). lw_config_parse calls it. LW_ERR_USAGE. */
LwStatus lw_config_check(const LwConfig *cfg, LwError *err);

/* True when flag (the name without "--", as in "redis") is one of the
 * shared settings every program takes; *takes_value (may be NULL) says
 * whether it needs a value. The tool uses it to accept them after its
 * sub-command too. */
bool lw_config_is_setting(const char *flag, bool *takes_value);

/* Prints the --help text of prog (shared and program flags) to out. */
void lw_config_usage(FILE *out, const LwProgram *prog);

/* Sets one shared setting by flag name ("redis", "heartbeat-ttl-s", ...)
 * from a string, as a flag would. LW_ERR_USAGE if unknown or bad. */
LwStatus lw_config_set(LwConfig *cfg, const char *name, const char *value, LwError *err);

/* The User-Agent header: "lodwash/VERSION (+CONTACT)". */
void lw_config_user_agent(const LwConfig *cfg, char *buf, size_t size);

/* Frees the strings cfg owns; safe on a zeroed or already freed cfg. */
void lw_config_free(LwConfig *cfg);

/* Parses a size or count: digits with an optional k/M/G suffix (1024-based).
 * Returns false on anything else (negative, overflow, junk). */
bool lw_parse_size(const char *text, long long *out);

/* ---- registry (config/registry.c) -------------------------------------- */

/*
 * registry.yaml: the user's list of providers. lodwash reads it, never
 * writes it.
 *
 *   d1lod:                         # the provider's name: [A-Za-z0-9]+
 *     void: http://lod.dataone.org/void.ttl   # its source: exactly one of
 *                                  #   void:    a VoID file listing dumps
 *                                  #   dcat:    a DCAT / DCAT-AP catalogue
 *                                  #            or dataset, any RDF syntax
 *                                  #   ckan:    a CKAN site's root (or a
 *                                  #            dataset's page)
 *                                  #   sitemap: an XML sitemap or index
 *                                  #   sparql:  a SPARQL query endpoint,
 *                                  #            with optional `graph:` (a
 *                                  #            named graph) or `query:` (a
 *                                  #            CONSTRUCT with ORDER BY)
 *                                  #   each an http or https URL
 *     modified: 2015-10-01         # optional: harvest only when the VoID's
 *                                  #   dcterms:modified is later than this
 *     enabled: false               # optional, default true
 *     interval: 3600               # optional: at least this many seconds
 *                                  #   between two visits of the VoID
 *     notify: https://d1lod.example.org/lodwash   # optional: each harvest's
 *                                  #   report is POSTed there (notify.h)
 *
 * `modified` takes any form base/base.h reads ("2015-10-10",
 * "2015-12-04 14:25:44.758604", "2015-12-04T14:25:44Z", with or without a
 * zone). Without it, the first VoID seen starts a harvest.
 *
 * Problems are located as "FILE:LINE: message" and collected on the
 * registry, not printed: the caller decides where they go.
 *   - a YAML syntax error, or a file that is not a mapping of names, fails
 *     the whole load (FILE:LINE:COLUMN), so the caller keeps its last good
 *     registry;
 *   - a bad name, a value that is not a mapping, no source or two, a
 *     non-http(s) source URL, an unparsable `modified`, a bad `enabled` or `interval`, or a
 *     duplicate key (libyaml accepts duplicates; lodwash does not) is an
 *     error: that provider is skipped, the others are kept. Every occurrence
 *     of a duplicated provider name is skipped, as it is not clear which one
 *     the user meant;
 *   - an unknown key is a warning: the provider is kept.
 */
#include <stdbool.h>
#include <stddef.h>

/* Longest provider name accepted (it names a graph and Redis keys). */
#define LW_PROVIDER_NAME_MAX 128

/* Largest registry file read, in bytes. */
#define LW_REGISTRY_MAX_BYTES (4u * 1024u * 1024u)

typedef struct {
  char *name;          /* [A-Za-z0-9]+ */
  const char *source;  /* its kind: "void", "dcat", "ckan", "sitemap" or
                          "sparql" (a static string) */
  char *source_url;    /* http or https URL of the source */
  char *sparql_graph;  /* sparql: `graph`, or NULL */
  char *sparql_query;  /* sparql: `query`, or NULL */
  bool has_modified;   /* `modified` given */
  LwDateTime modified; /* valid when has_modified */
  bool enabled;        /* `enabled`, default true */
  long interval;       /* `interval` in seconds; 0 = every scheduler cycle */
  char *notify_url;    /* `notify`: http(s) URL each harvest's report is
                          POSTed to (scheduler/notify.h), or NULL */
  unsigned line;       /* 1-based line of the name in the file */
} LwProvider;

typedef struct {
  bool warning;  /* true: a warning, the provider was kept */
  unsigned line; /* 1-based */
  char *message; /* "FILE:LINE: ..." */
} LwRegistryProblem;

typedef struct {
  char *path;            /* the file name used in messages */
  LwProvider *providers; /* the good entries, in file order */
  size_t count;
  LwRegistryProblem *problems; /* errors and warnings, in file order */
  size_t problem_count;
  size_t error_count; /* problems that skipped a provider */
} LwRegistry;

/* Reads and checks the registry file at path. On LW_OK *out is a new
 * registry the caller frees with lw_registry_free (it may hold problems).
 * On failure (LW_ERR_IO: unreadable; LW_ERR_SYNTAX: not YAML;
 * LW_ERR_FORMAT: not a mapping; LW_ERR_LIMIT: too large) *out is NULL and
 * err holds "FILE:LINE:COLUMN: ..." where a place is known. */
LwStatus lw_registry_load(const char *path, LwRegistry **out, LwError *err);

/* The registry file's bytes, NUL-terminated (caller frees *text), for
 * lw_registry_parse: the scheduler keeps the text it parsed. */
LwStatus lw_registry_read(const char *path, char **text, size_t *len, LwError *err);

/* The same for text in memory; name is used in messages as the file name. */
LwStatus lw_registry_parse(const char *text, size_t len, const char *name, LwRegistry **out,
                           LwError *err);

/* The provider called name, or NULL. The pointer lives as long as registry. */
const LwProvider *lw_registry_find(const LwRegistry *registry, const char *name);

/* True if name is a valid provider name ([A-Za-z0-9]+, not too long). */
bool lw_provider_name_valid(const char *name);

/* True if url is an absolute http or https URL with a host and no spaces or
 * control characters. */
bool lw_registry_url_valid(const char *url);

/* Frees registry and everything in it; NULL is fine. */
void lw_registry_free(LwRegistry *registry);

#endif
