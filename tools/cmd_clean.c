/*
 * `lodwash clean FILE [--format F] [--base IRI] [-o OUT]`: guess, parse and
 * clean a local file without Redis, through the worker's own code path
 * (clean/clean.h). Canonical N-Quads go to OUT (gzip only when OUT ends in
 * .gz) or stdout; a one-line summary goes to stderr.
 *
 * Exit codes: 0 success (even with skipped statements), 1 the file could not
 * be read or cleaned at all, 2 bad arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean/clean.h"
#include "jsonld/jsonld.h"
#include "rdf/rdf.h"
#include "base/base.h"
#include "tools/commands.h"

static int clean_main(const LwConfig *cfg, int argc, char **argv);

static void usage(FILE *out)
{
  fputs("usage: lodwash clean FILE [--format F] [--base IRI] [-o OUT]\n"
        "                         [--memory SIZE] [--tmp DIR] [--errors N]\n"
        "\n"
        "Parses FILE (gzip-compressed or not; format guessed from its content\n"
        "unless --format names it), skips and counts bad statements, counts\n"
        "invalid literals and language tags, turns blank nodes into\n"
        "well-known IRIs, and writes canonical N-Quads, sorted and without\n"
        "duplicates.\n"
        "\n"
        "  -f, --format F   jsonld, nquads, ntriples, rdfxml, rdfa, trig, turtle,\n"
        "                   jsonld-html (an HTML page's JSON-LD scripts), rdfjson\n"
        "  -b, --base IRI   base IRI for relative IRIs (default: FILE's file:// URI)\n"
        "  -o, --output OUT write to OUT, gzip-compressed when it ends in .gz\n"
        "                   (default: stdout, plain)\n"
        "  -m, --memory SIZE  sort memory, e.g. 64M, 1G (default 256M)\n"
        "  -t, --tmp DIR    data directory for sort runs (DIR/tmp; default $TMPDIR)\n"
        "  -e, --errors N   also print the first N errors to stderr\n"
        "  -c, --context-map URL=PATH  JSON-LD: read remote documents under URL\n"
        "                   from PATH (a file, or a folder for a URL prefix);\n"
        "                   other URLs are fetched over http(s) from public\n"
        "                   addresses (and those of --allow-net)\n"
        "  --no-fast-path   N-Triples/N-Quads: parse every line with the full\n"
        "                   reader (same output, slower; for checking)\n"
        "  -h, --help       this help\n"
        "\n"
        "A one-line summary goes to stderr. Exit status: 0 done (even with\n"
        "skipped statements), 1 FILE could not be read or cleaned, 2 bad usage.\n",
        out);
}

/* "64M", "1G", "65536" -> bytes; 0 on a bad value. */
static size_t parse_size(const char *s)
{
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) {
    return 0;
  }
  switch (*end) {
  case 'k':
  case 'K':
    v <<= 10;
    ++end;
    break;
  case 'm':
  case 'M':
    v <<= 20;
    ++end;
    break;
  case 'g':
  case 'G':
    v <<= 30;
    ++end;
    break;
  default:
    break;
  }
  if (*end == 'B' || *end == 'b') {
    ++end;
  }
  return *end ? 0 : (size_t)v;
}

typedef struct {
  const char *input;
  const char *output;
  LwCleanOptions options;
  int print_errors;
  LwJsonldMap *contexts; /* --context-map URL=PATH, created on first use */
} CleanArgs;

/* Value of an option given as "--name VALUE", "--name=VALUE" or "-x VALUE". */
static const char *option_value(int argc, char **argv, int *i, const char *arg,
                                const char *shrt, const char *lng)
{
  size_t n = strlen(lng);
  if (!strncmp(arg, lng, n) && arg[n] == '=') {
    return arg + n + 1;
  }
  if (strcmp(arg, lng) && strcmp(arg, shrt)) {
    return NULL;
  }
  if (*i + 1 >= argc) {
    fprintf(stderr, "lodwash clean: %s needs a value\n", arg);
    return "";
  }
  return argv[++*i];
}

/* 0 ok, 2 bad usage, -1 help printed. */
static int parse_args(int argc, char **argv, CleanArgs *a)
{
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *v;
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      usage(stdout);
      return -1;
    }
    if ((v = option_value(argc, argv, &i, arg, "-f", "--format"))) {
      a->options.format = lw_format_parse(v);
      if (a->options.format == LW_FORMAT_UNKNOWN) {
        fprintf(stderr, "lodwash clean: unknown format '%s'\n", v);
        return 2;
      }
    } else if ((v = option_value(argc, argv, &i, arg, "-b", "--base"))) {
      if (!*v) {
        return 2;
      }
      a->options.base_iri = v;
    } else if ((v = option_value(argc, argv, &i, arg, "-o", "--output"))) {
      if (!*v) {
        return 2;
      }
      a->output = v;
    } else if ((v = option_value(argc, argv, &i, arg, "-m", "--memory"))) {
      a->options.memory_budget = parse_size(v);
      if (!a->options.memory_budget) {
        fprintf(stderr, "lodwash clean: bad memory size '%s'\n", v);
        return 2;
      }
    } else if ((v = option_value(argc, argv, &i, arg, "-t", "--tmp"))) {
      if (!*v) {
        return 2;
      }
      a->options.data_dir = v;
    } else if ((v = option_value(argc, argv, &i, arg, "-e", "--errors"))) {
      char *end = NULL;
      long n = strtol(v, &end, 10);
      if (!*v || *end || n < 0 || n > 1000000) {
        fprintf(stderr, "lodwash clean: bad error count '%s'\n", v);
        return 2;
      }
      a->print_errors = (int)n;
    } else if ((v = option_value(argc, argv, &i, arg, "-c", "--context-map"))) {
      LwError err;
      if (!a->contexts && !(a->contexts = lw_jsonld_map_new())) {
        return 2;
      }
      if (lw_jsonld_map_add_spec(a->contexts, v, &err) != LW_OK) {
        fprintf(stderr, "lodwash clean: --context-map %s: %s\n", v, err.message);
        return 2;
      }
    } else if (!strcmp(arg, "--no-fast-path")) {
      a->options.no_fast_path = true;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      fprintf(stderr, "lodwash clean: unknown option '%s'\n", arg);
      return 2;
    } else if (!a->input) {
      a->input = arg;
    } else {
      fprintf(stderr, "lodwash clean: one FILE only ('%s')\n", arg);
      return 2;
    }
  }
  if (!a->input) {
    fputs("lodwash clean: FILE missing (lodwash clean --help shows the options)\n", stderr);
    return 2;
  }
  return 0;
}

static int clean_main(const LwConfig *cfg, int argc, char **argv)
{
  CleanArgs a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc) { /* a usage error is one line saying what is wrong: no usage dump */
    lw_jsonld_map_free(a.contexts);
    return rc < 0 ? 0 : rc;
  }
  /* Remote JSON-LD contexts: the map first, then the network under the
   * download stage's rules. */
  LwNetGuard *guard = NULL;
  LwError gerr;
  if (lw_netguard_new(cfg ? cfg->allow_net : NULL, &guard, &gerr) != LW_OK) {
    fprintf(stderr, "lodwash clean: %s\n", gerr.message);
    lw_jsonld_map_free(a.contexts);
    return 2;
  }
  LwDocumentLoader loader = {.guard = guard, .contact = cfg ? cfg->contact : NULL};
  if (a.contexts) {
    lw_jsonld_map_set_fallback(a.contexts, lw_document_load, &loader);
    a.options.load_document = lw_jsonld_map_load;
    a.options.load_handle = a.contexts;
  } else {
    a.options.load_document = lw_document_load;
    a.options.load_handle = &loader;
  }
  a.options.gunzip_input = true; /* the user's own file: FILE.nt.gz works */
  if (a.print_errors > 0) {
    a.options.max_errors = a.print_errors;
  }
  if (a.output && strcmp(a.output, "-")) {
    a.options.output_path = a.output;
  } else {
    a.options.output = stdout;
    a.options.compress = LW_CLEAN_GZIP_OFF;
  }
  LwCleanReport report;
  LwError err = {0};
  LwStatus st = lw_clean_file(a.input, &a.options, &report, &err);
  for (size_t i = 0; i < report.n_errors && (int)i < a.print_errors; ++i) {
    const LwCleanError *e = &report.errors[i];
    fprintf(stderr, "%s:%u:%u: %s: %s\n", a.input, e->line, e->column,
            lw_clean_error_kind_name(e->kind), e->message);
  }
  if (st != LW_OK) {
    fprintf(stderr, "lodwash clean: %s: %s\n", a.input,
            err.message[0] ? err.message : lw_status_name(st));
    lw_clean_report_free(&report);
    lw_jsonld_map_free(a.contexts);
    lw_netguard_free(guard);
    return st == LW_ERR_USAGE ? 2 : 1;
  }
  fprintf(stderr,
          "format=%s triples=%llu duplicates=%llu syntax_errors=%llu "
          "literal_errors=%llu bytes=%llu md5=%s\n",
          lw_format_name(report.format), report.triples, report.duplicates,
          report.syntax_errors, report.literal_errors, report.bytes, report.md5);
  lw_clean_report_free(&report);
  lw_jsonld_map_free(a.contexts);
  lw_netguard_free(guard);
  return 0;
}

/* `clean` needs no Redis, only the configuration (--allow-net, --contact). */
int lw_cmd_clean(LwTool *tool, int argc, char **argv)
{
  return clean_main(tool ? tool->config : NULL, argc, argv);
}
