/* trueline-check: command line → one of the modes (audit by default, or a tool in tools/). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "checks/checks.h"
#include "options.h"
#include "policy.h"
#include "report/formats.h"
#include "audit_settings.h"
#include "inputs.h"
#include "profile.h"
#include "read/image_cache.h"
#include "tools/tools.h"
#include "trueline/config.h"
#include "trueline/lib_versions.h"

#include <libdwarf.h>
#include <lz4.h>

static const char *dwarf_version(char *buf, size_t n)
{
    (void)buf, (void)n;
    return dwarf_package_version();
}

static const char *lz4_version(char *buf, size_t n)
{
    (void)buf, (void)n;
    return LZ4_versionString();
}

static int list_checks(const struct tlck_options *o)
{
    (void)o;
    for (size_t i = 0; i < tlck_ncheck; i++)
        printf("%-16s %-8s %s\n", tlck_checks[i]->id, tlck_severity_name(tlck_checks[i]->default_severity),
               tlck_checks[i]->summary);
    return 0;
}

/* The modes: one row each. getopt's table, --help, the usage, the exclusion of two modes, the --format check,
 * what main prepares before the run and the dispatch all read these rows, so a new mode is its file
 * (tools/<mode>.c) and one row here; its own options (--sm, --binary ...) are rows of mode_opts below. */
enum mode_formats {
    ANY_FORMAT,   /* any --format: the audit writes each, the other modes write no report and ignore it */
    TOOL_FORMATS, /* only a format the tools write (report/formats.c: the row's tool) */
};
struct mode {
    const char *option;   /* --OPTION selects it; NULL: the audit, what runs without a mode option */
    const char *arg;      /* the option's argument in --help, NULL: it takes none */
    size_t arg_field;     /* with arg: where it goes, offsetof(struct tlck_options, a const char *) */
    const char *help;     /* its line among --help's options */
    const char *usage;    /* its usage line, after "trueline-check " */
    int (*run)(const struct tlck_options *o);                                /* a tool, or */
    int (*run_policy)(const struct tlck_options *o, const struct tlck_policy *p); /* the one that reads the policy */
    int (*operands)(struct tlck_options *o); /* when not every operand is an input: sorts them (nonzero: exit 2) */
    enum mode_formats formats;
    unsigned no_inputs : 1;      /* it runs without an operand */
    unsigned profile : 1;        /* main selects the profile (--profile, [audit] profile, by the inputs) */
    unsigned image_cache : 1;    /* it summarizes device images: main opens their cache */
    unsigned makes_store : 1;    /* --debug-store is its output, so it need not exist yet */
};
#define ARG(field) offsetof(struct tlck_options, field)
static const struct mode modes[] = {
    { .usage = "[OPTIONS] FILE|DIR...", .run_policy = tlck_audit_main, .formats = ANY_FORMAT, .profile = 1,
      .image_cache = 1 }, /* first: the default; only the audit reads the policy */
    { .option = "list", .help = "mode: device-image inventory of each FILE",
      .usage = "--list FILE...             device-image inventory", .run = tlck_tool_list, .formats = TOOL_FORMATS,
      .image_cache = 1 },
    { .option = "extract", .arg = "DIR", .arg_field = ARG(extract_dir),
      .help = "mode: write each FILE's cubins and PTX into DIR", .usage = "--extract DIR FILE...      write cubins/PTX out",
      .run = tlck_tool_extract, .formats = ANY_FORMAT },
    { .option = "symbolize", .help = "mode: FILE KERNEL+0xOFF|ADDR... (or stdin) -> file:line, inline chain",
      .usage = "--symbolize FILE [KERNEL+0xOFF|PC...] [--sm N] [--addr2line]", .run = tlck_tool_symbolize,
      .operands = tlck_symbolize_operands, .formats = TOOL_FORMATS },
    { .option = "coredump", .help = "mode: CORE -> the faulting kernel's source line",
      .usage = "--coredump CORE [--binary FILE]... [--source-dir DIR] [--debug-store DIR]", .run = tlck_tool_coredump,
      .formats = TOOL_FORMATS },
    { .option = "provenance", .help = "mode: per-object provenance table (.note.trueline)",
      .usage = "--provenance FILE...       per-object provenance table", .run = tlck_tool_provenance,
      .formats = TOOL_FORMATS },
    { .option = "split", .help = "mode: FILE... without line info, the line info into --debug-store",
      .usage = "--split --debug-store STORE --output-dir DIR|--in-place FILE...", .run = tlck_tool_split,
      .formats = TOOL_FORMATS, .makes_store = 1 },
    { .option = "keygen", .arg = "NAME", .arg_field = ARG(keygen),
      .help = "mode: write an Ed25519 signing key NAME (0600) and NAME.pub", .usage = "--keygen NAME",
      .run = tlck_tool_keygen, .formats = ANY_FORMAT, .no_inputs = 1 },
    { .option = "attest", .help = "mode: sign an in-toto provenance statement of ARTIFACT... into --output",
      .usage = "--attest --signing-key NAME --output FILE.intoto.jsonl [--require LIST] ARTIFACT...",
      .run = tlck_tool_attest, .formats = ANY_FORMAT },
    { .option = "verify-attestation", .arg = "FILE", .arg_field = ARG(attestation),
      .help = "mode: check FILE.intoto.jsonl against ARTIFACT...",
      .usage = "--verify-attestation FILE.intoto.jsonl --public-key NAME.pub [--require LIST] ARTIFACT...",
      .run = tlck_tool_verify_attestation, .formats = ANY_FORMAT },
    { .option = "list-checks", .help = "mode: the checks, their default severity and summary",
      .usage = "--list-checks", .run = list_checks, .formats = ANY_FORMAT, .no_inputs = 1 },
};
#undef ARG
#define NMODE (sizeof modes / sizeof *modes)

enum { O_FORMAT = 256, O_OUTPUT, O_FAIL_ON, O_CHECKS, O_POLICY, O_CONFIG, O_BASELINE, O_WRITE_BASELINE,
       O_DEBUG_DIR, O_RELEASE, O_SM, O_BINARY, O_SOURCE_DIR, O_PROGRESS, O_NO_PROGRESS, O_COLOR, O_NO_COLOR,
       O_VERSION, O_MAX_MB, O_MAX_RUN_MB, O_TIMEOUT, O_HOST_ONLY, O_ALLOW_EMPTY, O_FOLLOW_SYMLINKS, O_PROFILE,
       O_IMAGE_CACHE, O_NO_IMAGE_CACHE, O_DEBUG_STORE, O_OUTPUT_DIR, O_IN_PLACE, O_DEVICE_ONLY, O_SIGNING_KEY, O_PUBLIC_KEY,
       O_REQUIRE, O_TOOLCHAIN, O_RECORD_KEY,
       O_MODE /* O_MODE + i: the option of modes[i] */ };

/* Every option but the modes': getopt's table and --help both come from here and from the mode rows
 * (docs/man/trueline-check.1 documents the same list; tests/suites/cli_docs.sh holds the two together). */
struct opt_doc {
    const char *name; /* long name, or NULL for the short -j */
    int has_arg, id;
    const char *arg, *help;
};
/* The options that go with one mode: --help lists each under its mode's option. */
static const struct mode_opt {
    const char *mode;
    struct opt_doc d;
} mode_opts[] = {
    { "symbolize", { "sm", required_argument, O_SM, "N", "with --symbolize: the SM of the image to use (90 or sm_90)" } },
    { "symbolize", { "addr2line", no_argument, 'a' /* long only */, NULL, "with --symbolize: print as addr2line -f -i -C does" } },
    { "coredump", { "binary", required_argument, O_BINARY, "FILE", "with --coredump: a binary with the device code (repeatable)" } },
    { "coredump", { "source-dir", required_argument, O_SOURCE_DIR, "DIR", "with --coredump: where the sources to quote are" } },
    { "split", { "debug-store", required_argument, O_DEBUG_STORE, "DIR", "the debug store (.build-id/NN/REST.debug): --split writes it, the other modes read it (then DEBUGINFOD_URLS)" } },
    { "split", { "output-dir", required_argument, O_OUTPUT_DIR, "DIR", "with --split: write the shipped copies into DIR" } },
    { "split", { "in-place", no_argument, O_IN_PLACE, NULL, "with --split: rewrite each FILE itself (atomically)" } },
    { "split", { "device-only", no_argument, O_DEVICE_ONLY, NULL, "with --split: only device line info goes; host DWARF stays" } },
    { "attest", { "signing-key", required_argument, O_SIGNING_KEY, "FILE", "with --attest: the secret key (--keygen's NAME)" } },
    { "attest", { "record-key", required_argument, O_RECORD_KEY, "FILE", "with --attest: the records' MAC key ([provenance] key_file): check each MAC" } },
    { "attest", { "toolchain", required_argument, O_TOOLCHAIN, "DRIVER", "with --attest: resolve this compiler's components (repeatable)" } },
    { "verify-attestation", { "public-key", required_argument, O_PUBLIC_KEY, "FILE", "with --verify-attestation: the signer's NAME.pub" } },
    { "verify-attestation", { "require", required_argument, O_REQUIRE, "LIST", "with --attest/--verify-attestation: one-toolchain,line-info,no-device-debug,keyed,recorded|all" } },
};
#define NMODE_OPT (sizeof mode_opts / sizeof *mode_opts)
/* The general options. */
static const struct opt_doc opt_docs[] = {
    { "format", required_argument, O_FORMAT, "FORMAT", "report format (default text)" }, /* report/formats.c */
    { "output", required_argument, O_OUTPUT, "FILE", "write the report to FILE" },
    { "fail-on", required_argument, O_FAIL_ON, "error|warning|info", "exit 1 at or above this severity (default error)" },
    { "checks", required_argument, O_CHECKS, "ID,ID", "run only these checks (ids as --list-checks shows them)" },
    { "policy", required_argument, O_POLICY, "NAME", "platform policy for symbol-versions (e.g. manylinux_2_28)" },
    { "config", required_argument, O_CONFIG, "FILE", "policy/config file (default: the standard lookup)" },
    { "baseline", required_argument, O_BASELINE, "FILE", "only findings not in this earlier JSON report count" },
    { "write-baseline", required_argument, O_WRITE_BASELINE, "FILE", "also write the JSON report to FILE" },
    { "debug-dir", required_argument, O_DEBUG_DIR, "DIR", "where separate debug files live (repeatable)" },
    { "release", no_argument, O_RELEASE, NULL, "release audit (e.g. -G device images are findings)" },
    { "profile", required_argument, O_PROFILE, "build|release", "what the files should carry (release: shipped, stripped)" },
    { "host-only", no_argument, O_HOST_ONLY, NULL, "skip device images (fatbins): host checks only, much faster" },
    { "image-cache", required_argument, O_IMAGE_CACHE, "DIR", "keep device-image summaries here (default ~/.cache/trueline/images)" },
    { "no-image-cache", no_argument, O_NO_IMAGE_CACHE, NULL, "decompress every device image, use no cache" },
    { "allow-empty", no_argument, O_ALLOW_EMPTY, NULL, "exit 0 when the inputs hold no file to check (default: 2)" },
    { "follow-symlinks", no_argument, O_FOLLOW_SYMLINKS, NULL, "follow links to directories in a directory scan" },
    { NULL, required_argument, 'j', "N", "parallel files (default: CPUs)" },
    { "timeout", required_argument, O_TIMEOUT, "S", "give up on one input after S seconds (exit 2; others go on)" },
    { "max-input-mb", required_argument, O_MAX_MB, "N", "bound what one input's sections (or one fatbin entry) decompress to" },
    { "max-run-mb", required_argument, O_MAX_RUN_MB, "N", "bound what the inputs read at once (-j) hold together (default: as one input)" },
    { "progress", no_argument, O_PROGRESS, NULL, "progress on stderr (default: on a TTY, for long runs)" },
    { "no-progress", no_argument, O_NO_PROGRESS, NULL, "no progress" },
    { "color", no_argument, O_COLOR, NULL, "colour in the text report (default: when stdout is a TTY)" },
    { "no-color", no_argument, O_NO_COLOR, NULL, "no colour" },
    { "verbose", no_argument, 'v' /* long only */, NULL, "text report: every finding of a long list (default: the first 5)" },
    { "version", no_argument, O_VERSION, NULL, "the version and the libraries it was built with" },
    { "help", no_argument, 'h', NULL, "this help (also -h)" },
};
#define NOPT (sizeof opt_docs / sizeof *opt_docs)

static void help_line(FILE *out, const char *name, const char *arg, const char *help)
{
    char left[64];
    snprintf(left, sizeof left, "%s%s%s%s", name ? "--" : "-", name ? name : "j", arg ? " " : "", arg ? arg : "");
    fprintf(out, "  %-32s %s\n", left, help);
}

static void opt_help_line(FILE *out, const struct opt_doc *d)
{
    char formats[64];
    help_line(out, d->name, d->id == O_FORMAT ? tlck_output_format_names(formats, sizeof formats, "|", 0) : d->arg,
              d->help);
}

/* The usage lines, then each mode's option followed by the options that go with it, then the general ones. */
static void usage(FILE *out)
{
    for (size_t m = 0; m < NMODE; m++)
        fprintf(out, "%s trueline-check %s\n", m == 0 ? "usage:" : "      ", modes[m].usage);
    fprintf(out, "options:\n");
    for (size_t m = 0; m < NMODE; m++) {
        if (!modes[m].option)
            continue;
        help_line(out, modes[m].option, modes[m].arg, modes[m].help);
        for (size_t i = 0; i < NMODE_OPT; i++)
            if (strcmp(mode_opts[i].mode, modes[m].option) == 0)
                opt_help_line(out, &mode_opts[i].d);
    }
    for (size_t i = 0; i < NOPT; i++)
        opt_help_line(out, &opt_docs[i]);
    fprintf(out,
        "exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or config error, unreadable input\n"
        "             or a report that could not be written\n");
}

/* getopt's table, from the mode rows, mode_opts and opt_docs (the short -j is in the optstring). */
static void long_options(struct option *lo)
{
    size_t n = 0;
    for (size_t m = 0; m < NMODE; m++)
        if (modes[m].option)
            lo[n++] = (struct option){ modes[m].option, modes[m].arg ? required_argument : no_argument, 0,
                                       O_MODE + (int)m };
    for (size_t i = 0; i < NMODE_OPT; i++)
        lo[n++] = (struct option){ mode_opts[i].d.name, mode_opts[i].d.has_arg, 0, mode_opts[i].d.id };
    for (size_t i = 0; i < NOPT; i++)
        if (opt_docs[i].name)
            lo[n++] = (struct option){ opt_docs[i].name, opt_docs[i].has_arg, 0, opt_docs[i].id };
    lo[n] = (struct option){ 0, 0, 0, 0 };
}

static int print_version(void)
{
    static const struct tl_lib_version own[] = { { "libdwarf", dwarf_version }, { "lz4", lz4_version } };
    printf("trueline-check %s\n", TRUELINE_VERSION);
    tl_print_lib_versions(stdout, own, sizeof own / sizeof *own);
    return 0;
}

static int push(const char ***v, size_t *n, const char *s)
{
    const char **p = realloc(*v, (*n + 1) * sizeof **v);
    if (!p)
        return -1;
    p[(*n)++] = s;
    *v = p;
    return 0;
}

/* The command line: the options, and the row of the mode they chose. */
struct command {
    struct tlck_options o;
    const struct mode *mode;
};

static int set_mode(struct command *cmd, const struct mode *m, const char *arg)
{
    if (cmd->mode != &modes[0] && cmd->mode != m) {
        fputs("trueline-check: ", stderr);
        for (size_t i = 1; i < NMODE; i++) /* modes[0], the audit, has no option */
            fprintf(stderr, "%s--%s", i == 1 ? "" : i + 1 == NMODE ? " and " : ", ", modes[i].option);
        fputs(" exclude each other\n", stderr);
        return -1;
    }
    cmd->mode = m;
    if (m->arg)
        *(const char **)((char *)&cmd->o + m->arg_field) = arg;
    return 0;
}

static int parse_option(struct command *cmd, int c, const char *arg)
{
    struct tlck_options *o = &cmd->o;
    char *end;
    if (c >= O_MODE && c < O_MODE + (int)NMODE)
        return set_mode(cmd, &modes[c - O_MODE], arg);
    switch (c) {
    case O_FORMAT: o->format = arg; return 0;
    case O_OUTPUT: o->output = arg; return 0;
    case O_FAIL_ON:
        if (tlck_severity_parse(arg, &o->fail_on) != 0 || o->fail_on == TLCK_SEV_NONE) {
            fprintf(stderr, "trueline-check: --fail-on: '%s' is not error, warning or info\n", arg);
            return -1;
        }
        return 0;
    case O_CHECKS: o->only = arg; return 0;
    case O_POLICY: o->platform = arg; return 0;
    case O_CONFIG: o->config = arg; return 0;
    case O_BASELINE: o->baseline = arg; return 0;
    case O_WRITE_BASELINE: o->write_baseline = arg; return 0;
    case O_DEBUG_DIR: return push(&o->debug_dirs, &o->ndebug_dirs, arg);
    case O_RELEASE: o->release = 1; return 0;
    case O_PROFILE:
        if (!tlck_profile_find(arg)) {
            fprintf(stderr, "trueline-check: --profile: unknown profile '%s'; valid: %s\n", arg, tlck_profile_names());
            return -1;
        }
        o->profile = arg;
        return 0;
    case O_HOST_ONLY: o->host_only = 1; return 0;
    case O_IMAGE_CACHE: o->image_cache_dir = arg; return 0;
    case O_NO_IMAGE_CACHE: o->no_image_cache = 1; return 0;
    case O_ALLOW_EMPTY: o->allow_empty = 1; return 0;
    case O_FOLLOW_SYMLINKS: o->follow_symlinks = 1; return 0;
    case O_SM:
        o->sm = (unsigned)strtoul(strncmp(arg, "sm_", 3) == 0 ? arg + 3 : arg, &end, 10);
        if (*end && *end != 'a' && *end != 'f') {
            fprintf(stderr, "trueline-check: --sm: '%s' is not an SM number\n", arg);
            return -1;
        }
        return 0;
    case O_BINARY: return push(&o->binaries, &o->nbinaries, arg);
    case O_SOURCE_DIR: o->source_dir = arg; return 0;
    case O_SIGNING_KEY: o->signing_key = arg; return 0;
    case O_RECORD_KEY: o->record_key = arg; return 0;
    case O_TOOLCHAIN: return push(&o->toolchains, &o->ntoolchains, arg);
    case O_PUBLIC_KEY: o->public_key = arg; return 0;
    case O_REQUIRE: o->require = arg; return 0;
    case O_DEBUG_STORE: o->debug_store = arg; return 0;
    case O_OUTPUT_DIR: o->output_dir = arg; return 0;
    case O_IN_PLACE: o->in_place = 1; return 0;
    case O_DEVICE_ONLY: o->split_device_only = 1; return 0;
    case O_PROGRESS: o->progress = 1; return 0;
    case O_NO_PROGRESS: o->progress = 0; return 0;
    case O_COLOR: o->color = 1; return 0;
    case O_NO_COLOR: o->color = 0; return 0;
    case 'v': o->verbose = 1; return 0;
    case 'a': o->addr2line = 1; return 0;
    case O_MAX_MB:
        o->max_input_mb = strtoull(arg, &end, 10);
        if (*end || !*arg || *arg == '-') {
            fprintf(stderr, "trueline-check: --max-input-mb: '%s' is not a number of MiB\n", arg);
            return -1;
        }
        return 0;
    case O_MAX_RUN_MB:
        o->max_run_mb = strtoull(arg, &end, 10);
        if (*end || !*arg || *arg == '-' || o->max_run_mb == 0) {
            fprintf(stderr, "trueline-check: --max-run-mb: '%s' is not a number of MiB (1 or more)\n", arg);
            return -1;
        }
        return 0;
    case O_TIMEOUT:
        o->timeout_s = (unsigned)strtoul(arg, &end, 10);
        if (*end || !*arg || *arg == '-') {
            fprintf(stderr, "trueline-check: --timeout: '%s' is not a number of seconds\n", arg);
            return -1;
        }
        return 0;
    case 'j':
        o->jobs = (int)strtol(arg, &end, 10);
        if (*end || o->jobs < 0) {
            fprintf(stderr, "trueline-check: -j: '%s' is not a number\n", arg);
            return -1;
        }
        return 0;
    case O_VERSION: exit(print_version());
    case 'h': usage(stdout); exit(0);
    default: usage(stderr); return -1;
    }
}

static int run_mode(struct command *cmd, const struct tlck_policy *p)
{
    const struct mode *m = cmd->mode;
    if (m->operands && m->operands(&cmd->o) != 0)
        return 2;
    return m->run_policy ? m->run_policy(&cmd->o, p) : m->run(&cmd->o);
}

/* The format is checked before any input is read, so a misspelt one fails before a whole audit runs, and a
 * tool never prints text for a format it does not write. */
static int check_format(const struct command *cmd)
{
    const struct tlck_options *o = &cmd->o;
    const struct tlck_output_format *f = tlck_output_format_find(o->format);
    char names[128];
    if (!f) {
        fprintf(stderr, "trueline-check: --format: '%s' is not %s\n", o->format,
                tlck_output_format_names(names, sizeof names, NULL, 0));
        return -1;
    }
    if (cmd->mode->formats == TOOL_FORMATS && f->tool == TLCK_TOOL_NONE) {
        fprintf(stderr, "trueline-check: --%s writes %s, not %s\n", cmd->mode->option,
                tlck_output_format_names(names, sizeof names, NULL, 1), o->format);
        return -1;
    }
    return 0;
}

static void free_options(struct tlck_options *o)
{
    free(o->inputs);
    free(o->debug_dirs);
    free(o->binaries);
    free(o->toolchains);
}

int main(int argc, char **argv)
{
    struct command cmd = { .o = { .format = "text", .fail_on = TLCK_SEV_ERROR, .progress = -1, .color = -1 },
                           .mode = &modes[0] };
    struct tlck_options *o = &cmd.o;
    struct option long_opts[NMODE + NMODE_OPT + NOPT + 1];
    long_options(long_opts);
    int c;
    while ((c = getopt_long(argc, argv, "hj:", long_opts, NULL)) != -1)
        if (parse_option(&cmd, c, optarg) != 0)
            return free_options(o), 2;
    if (check_format(&cmd) != 0)
        return free_options(o), 2;
    for (int i = optind; i < argc; i++)
        push(&o->inputs, &o->ninputs, argv[i]);
    char self[4096];
    ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (self_len > 0) {
        self[self_len] = 0;
        o->self_exe = self;
    }
    const struct mode *m = cmd.mode;
    if (o->ninputs == 0 && !m->no_inputs) {
        usage(stderr);
        free_options(o);
        return 2;
    }
    tl_config cfg = { 0 };
    tl_error err;
    int rc;
    const struct tlck_profile *profile = NULL; /* --profile, else [audit] profile, else by the inputs */
    if ((o->config ? tl_config_load_file(&cfg, o->config, &err) : tl_config_load(&cfg, &err)) != 0) {
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        rc = 2;
    } else if (tlck_audit_settings_check(&cfg, &err) != 0 ||
               tlck_audit_settings_debug_store(o, &cfg, m->makes_store, &err) != 0 ||
               (m->profile &&
                !(profile = tlck_profile_select(&cfg, o->profile, tlck_inputs_all_packages(o->inputs, o->ninputs), &err))) ||
               (m->image_cache && tlck_audit_settings_image_cache(o, &cfg, &err) != 0)) {
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        rc = 2;
    } else {
        struct tlck_policy pol = { .cfg = &cfg, .fail_on = o->fail_on, .platform = o->platform, .only = o->only,
                                 .release = o->release, .profile = profile };
        pol.release |= pol.profile && pol.profile->release;
        rc = run_mode(&cmd, &pol);
    }
    if (o->image_cache && o->verbose) {
        struct tlck_image_cache_stats st = tlck_image_cache_stats(o->image_cache);
        fprintf(stderr, "trueline-check: image cache %s: %llu hits, %llu misses, %llu stored\n",
                tlck_image_cache_dir(o->image_cache), (unsigned long long)st.hits, (unsigned long long)st.misses,
                (unsigned long long)st.stored);
    }
    tlck_image_cache_close(o->image_cache);
    tl_config_free(&cfg);
    free_options(o);
    return rc;
}
