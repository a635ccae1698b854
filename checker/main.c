/* trueline-check: command line → one of the modes (audit by default, or a tool in tools/). */
#include <getopt.h>
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

enum { O_FORMAT = 256, O_OUTPUT, O_FAIL_ON, O_CHECKS, O_POLICY, O_CONFIG, O_BASELINE, O_WRITE_BASELINE,
       O_DEBUG_DIR, O_RELEASE, O_LIST, O_EXTRACT, O_SYMBOLIZE, O_SM, O_COREDUMP, O_BINARY, O_SOURCE_DIR,
       O_PROVENANCE, O_LIST_CHECKS, O_PROGRESS, O_NO_PROGRESS, O_COLOR, O_NO_COLOR, O_VERSION, O_MAX_MB,
       O_TIMEOUT, O_HOST_ONLY, O_ALLOW_EMPTY, O_FOLLOW_SYMLINKS, O_PROFILE, O_IMAGE_CACHE, O_NO_IMAGE_CACHE,
       O_SPLIT, O_DEBUG_STORE, O_OUTPUT_DIR, O_IN_PLACE, O_DEVICE_ONLY, O_KEYGEN, O_ATTEST, O_SIGNING_KEY,
       O_VERIFY_ATTESTATION, O_PUBLIC_KEY, O_REQUIRE, O_TOOLCHAIN, O_RECORD_KEY };

/* Every option once: getopt's table and --help both come from here (docs/man/trueline-check.1 documents the
 * same list; tests/suites/cli_docs.sh holds the two together). */
struct opt_doc {
    const char *name; /* long name, or NULL for the short -j */
    int has_arg, id;
    const char *arg, *help;
};
static const struct opt_doc opt_docs[] = {
    { "list", no_argument, O_LIST, NULL, "mode: device-image inventory of each FILE" },
    { "extract", required_argument, O_EXTRACT, "DIR", "mode: write each FILE's cubins and PTX into DIR" },
    { "symbolize", no_argument, O_SYMBOLIZE, NULL, "mode: FILE KERNEL+0xOFF|ADDR... (or stdin) -> file:line, inline chain" },
    { "sm", required_argument, O_SM, "N", "with --symbolize: the SM of the image to use (90 or sm_90)" },
    { "addr2line", no_argument, 'a' /* long only */, NULL, "with --symbolize: print as addr2line -f -i -C does" },
    { "coredump", no_argument, O_COREDUMP, NULL, "mode: CORE -> the faulting kernel's source line" },
    { "binary", required_argument, O_BINARY, "FILE", "with --coredump: a binary with the device code (repeatable)" },
    { "source-dir", required_argument, O_SOURCE_DIR, "DIR", "with --coredump: where the sources to quote are" },
    { "provenance", no_argument, O_PROVENANCE, NULL, "mode: per-object provenance table (.note.trueline)" },
    { "split", no_argument, O_SPLIT, NULL, "mode: FILE... without line info, the line info into --debug-store" },
    { "debug-store", required_argument, O_DEBUG_STORE, "DIR", "the debug store (.build-id/NN/REST.debug): --split writes it, the other modes read it (then DEBUGINFOD_URLS)" },
    { "output-dir", required_argument, O_OUTPUT_DIR, "DIR", "with --split: write the shipped copies into DIR" },
    { "in-place", no_argument, O_IN_PLACE, NULL, "with --split: rewrite each FILE itself (atomically)" },
    { "device-only", no_argument, O_DEVICE_ONLY, NULL, "with --split: only device line info goes; host DWARF stays" },
    { "keygen", required_argument, O_KEYGEN, "NAME", "mode: write an Ed25519 signing key NAME (0600) and NAME.pub" },
    { "attest", no_argument, O_ATTEST, NULL, "mode: sign an in-toto provenance statement of ARTIFACT... into --output" },
    { "signing-key", required_argument, O_SIGNING_KEY, "FILE", "with --attest: the secret key (--keygen's NAME)" },
    { "record-key", required_argument, O_RECORD_KEY, "FILE", "with --attest: the records' MAC key ([provenance] key_file): check each MAC" },
    { "toolchain", required_argument, O_TOOLCHAIN, "DRIVER", "with --attest: resolve this compiler's components (repeatable)" },
    { "verify-attestation", required_argument, O_VERIFY_ATTESTATION, "FILE", "mode: check FILE.intoto.jsonl against ARTIFACT..." },
    { "public-key", required_argument, O_PUBLIC_KEY, "FILE", "with --verify-attestation: the signer's NAME.pub" },
    { "require", required_argument, O_REQUIRE, "LIST", "with --attest/--verify-attestation: one-toolchain,line-info,no-device-debug,keyed,recorded|all" },
    { "list-checks", no_argument, O_LIST_CHECKS, NULL, "mode: the checks, their default severity and summary" },
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
    { "progress", no_argument, O_PROGRESS, NULL, "progress on stderr (default: on a TTY, for long runs)" },
    { "no-progress", no_argument, O_NO_PROGRESS, NULL, "no progress" },
    { "color", no_argument, O_COLOR, NULL, "colour in the text report (default: when stdout is a TTY)" },
    { "no-color", no_argument, O_NO_COLOR, NULL, "no colour" },
    { "verbose", no_argument, 'v' /* long only */, NULL, "text report: every finding of a long list (default: the first 5)" },
    { "version", no_argument, O_VERSION, NULL, "the version and the libraries it was built with" },
    { "help", no_argument, 'h', NULL, "this help (also -h)" },
};
#define NOPT (sizeof opt_docs / sizeof *opt_docs)

static void usage(FILE *out)
{
    fprintf(out,
        "usage: trueline-check [OPTIONS] FILE|DIR...\n"
        "       trueline-check --list FILE...             device-image inventory\n"
        "       trueline-check --extract DIR FILE...      write cubins/PTX out\n"
        "       trueline-check --symbolize FILE [KERNEL+0xOFF|PC...] [--sm N] [--addr2line]\n"
        "       trueline-check --coredump CORE [--binary FILE]... [--source-dir DIR] [--debug-store DIR]\n"
        "       trueline-check --provenance FILE...       per-object provenance table\n"
        "       trueline-check --split --debug-store STORE --output-dir DIR|--in-place FILE...\n"
        "       trueline-check --keygen NAME\n"
        "       trueline-check --attest --signing-key NAME --output FILE.intoto.jsonl [--require LIST] ARTIFACT...\n"
        "       trueline-check --verify-attestation FILE.intoto.jsonl --public-key NAME.pub [--require LIST] ARTIFACT...\n"
        "       trueline-check --list-checks\n"
        "options:\n");
    for (size_t i = 0; i < NOPT; i++) {
        char left[64];
        const struct opt_doc *d = &opt_docs[i];
        char formats[64];
        const char *arg = d->id == O_FORMAT ? tlck_output_format_names(formats, sizeof formats, "|", 0) : d->arg;
        snprintf(left, sizeof left, "%s%s%s%s", d->name ? "--" : "-", d->name ? d->name : "j", arg ? " " : "",
                 arg ? arg : "");
        fprintf(out, "  %-32s %s\n", left, d->help);
    }
    fprintf(out,
        "exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or config error, unreadable input\n"
        "             or a report that could not be written\n");
}

/* getopt's table, from opt_docs (the short -j is in the optstring). */
static void long_options(struct option *lo)
{
    size_t n = 0;
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

static int set_mode(struct tlck_options *o, enum tlck_mode m)
{
    if (o->mode != TLCK_MODE_AUDIT && o->mode != m) {
        fprintf(stderr, "trueline-check: --list, --extract, --symbolize, --coredump, --provenance, --split, --keygen, --attest and "
                        "--verify-attestation exclude each other\n");
        return -1;
    }
    o->mode = m;
    return 0;
}

static int parse_option(struct tlck_options *o, int c, const char *arg)
{
    char *end;
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
    case O_LIST: return set_mode(o, TLCK_MODE_LIST);
    case O_EXTRACT: o->extract_dir = arg; return set_mode(o, TLCK_MODE_EXTRACT);
    case O_SYMBOLIZE: return set_mode(o, TLCK_MODE_SYMBOLIZE);
    case O_SM:
        o->sm = (unsigned)strtoul(strncmp(arg, "sm_", 3) == 0 ? arg + 3 : arg, &end, 10);
        if (*end && *end != 'a' && *end != 'f') {
            fprintf(stderr, "trueline-check: --sm: '%s' is not an SM number\n", arg);
            return -1;
        }
        return 0;
    case O_COREDUMP: return set_mode(o, TLCK_MODE_COREDUMP);
    case O_BINARY: return push(&o->binaries, &o->nbinaries, arg);
    case O_SOURCE_DIR: o->source_dir = arg; return 0;
    case O_PROVENANCE: return set_mode(o, TLCK_MODE_PROVENANCE);
    case O_LIST_CHECKS: return set_mode(o, TLCK_MODE_LIST_CHECKS);
    case O_KEYGEN: o->keygen = arg; return set_mode(o, TLCK_MODE_KEYGEN);
    case O_ATTEST: return set_mode(o, TLCK_MODE_ATTEST);
    case O_SIGNING_KEY: o->signing_key = arg; return 0;
    case O_RECORD_KEY: o->record_key = arg; return 0;
    case O_TOOLCHAIN: return push(&o->toolchains, &o->ntoolchains, arg);
    case O_VERIFY_ATTESTATION: o->attestation = arg; return set_mode(o, TLCK_MODE_VERIFY_ATTESTATION);
    case O_PUBLIC_KEY: o->public_key = arg; return 0;
    case O_REQUIRE: o->require = arg; return 0;
    case O_SPLIT: return set_mode(o, TLCK_MODE_SPLIT);
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

static int list_checks(void)
{
    for (size_t i = 0; i < tlck_ncheck; i++)
        printf("%-16s %-8s %s\n", tlck_checks[i]->id, tlck_severity_name(tlck_checks[i]->default_severity),
               tlck_checks[i]->summary);
    return 0;
}

static int run_mode(struct tlck_options *o, const struct tlck_policy *p)
{
    switch (o->mode) {
    case TLCK_MODE_LIST_CHECKS: return list_checks();
    case TLCK_MODE_LIST: return tlck_tool_list(o);
    case TLCK_MODE_EXTRACT: return tlck_tool_extract(o);
    case TLCK_MODE_SYMBOLIZE:
        if (o->ninputs < 1) {
            fprintf(stderr, "trueline-check: --symbolize takes FILE and locations, KERNEL+0xOFFSET or a PC (none or "
                            "'-': one per line on stdin)\n");
            return 2;
        }
        o->locations = o->inputs + 1;
        o->nlocations = o->ninputs - 1;
        o->ninputs = 1;
        return tlck_tool_symbolize(o);
    case TLCK_MODE_COREDUMP: return tlck_tool_coredump(o);
    case TLCK_MODE_PROVENANCE: return tlck_tool_provenance(o);
    case TLCK_MODE_SPLIT: return tlck_tool_split(o);
    case TLCK_MODE_KEYGEN: return tlck_tool_keygen(o);
    case TLCK_MODE_ATTEST: return tlck_tool_attest(o);
    case TLCK_MODE_VERIFY_ATTESTATION: return tlck_tool_verify_attestation(o);
    default: return tlck_audit_main(o, p); /* only the audit reads the policy */
    }
}

/* The format is checked before any input is read, so a misspelt one fails before a whole audit runs, and a
 * tool never prints text for a format it does not write. */
static int check_format(const struct tlck_options *o)
{
    const struct tlck_output_format *f = tlck_output_format_find(o->format);
    char names[128];
    if (!f) {
        fprintf(stderr, "trueline-check: --format: '%s' is not %s\n", o->format,
                tlck_output_format_names(names, sizeof names, NULL, 0));
        return -1;
    }
    static const char *const tool[] = { [TLCK_MODE_LIST] = "--list", [TLCK_MODE_SYMBOLIZE] = "--symbolize",
                                        [TLCK_MODE_COREDUMP] = "--coredump", [TLCK_MODE_PROVENANCE] = "--provenance",
                                        [TLCK_MODE_SPLIT] = "--split" };
    const char *name = (size_t)o->mode < sizeof tool / sizeof *tool ? tool[o->mode] : NULL;
    if (name && f->tool == TLCK_TOOL_NONE) {
        fprintf(stderr, "trueline-check: %s writes %s, not %s\n", name,
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
    struct tlck_options o = { .format = "text", .fail_on = TLCK_SEV_ERROR, .progress = -1, .color = -1 };
    struct option long_opts[NOPT + 1];
    long_options(long_opts);
    int c;
    while ((c = getopt_long(argc, argv, "hj:", long_opts, NULL)) != -1)
        if (parse_option(&o, c, optarg) != 0)
            return free_options(&o), 2;
    if (check_format(&o) != 0)
        return free_options(&o), 2;
    for (int i = optind; i < argc; i++)
        push(&o.inputs, &o.ninputs, argv[i]);
    char self[4096];
    ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (self_len > 0) {
        self[self_len] = 0;
        o.self_exe = self;
    }
    if (o.ninputs == 0 && o.mode != TLCK_MODE_LIST_CHECKS && o.mode != TLCK_MODE_KEYGEN) {
        usage(stderr);
        free_options(&o);
        return 2;
    }
    tl_config cfg = { 0 };
    tl_error err;
    int rc;
    const struct tlck_profile *profile = NULL; /* --profile, else [audit] profile, else by the inputs */
    if ((o.config ? tl_config_load_file(&cfg, o.config, &err) : tl_config_load(&cfg, &err)) != 0) {
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        rc = 2;
    } else if (tlck_audit_settings_check(&cfg, &err) != 0 || tlck_audit_settings_debug_store(&o, &cfg, &err) != 0 ||
               (o.mode == TLCK_MODE_AUDIT &&
                !(profile = tlck_profile_select(&cfg, o.profile, tlck_inputs_all_packages(o.inputs, o.ninputs), &err))) ||
               ((o.mode == TLCK_MODE_AUDIT || o.mode == TLCK_MODE_LIST) &&
                tlck_audit_settings_image_cache(&o, &cfg, &err) != 0)) {
        /* only an audit has a profile, and only the modes that summarize device images use their cache */
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        rc = 2;
    } else {
        struct tlck_policy pol = { .cfg = &cfg, .fail_on = o.fail_on, .platform = o.platform, .only = o.only,
                                 .release = o.release, .profile = profile };
        pol.release |= pol.profile && pol.profile->release;
        rc = run_mode(&o, &pol);
    }
    if (o.image_cache && o.verbose) {
        struct tlck_image_cache_stats st = tlck_image_cache_stats(o.image_cache);
        fprintf(stderr, "trueline-check: image cache %s: %llu hits, %llu misses, %llu stored\n",
                tlck_image_cache_dir(o.image_cache), (unsigned long long)st.hits, (unsigned long long)st.misses,
                (unsigned long long)st.stored);
    }
    tlck_image_cache_close(o.image_cache);
    tl_config_free(&cfg);
    free_options(&o);
    return rc;
}
