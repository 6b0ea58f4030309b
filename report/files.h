/*
 * report/files.h - files the command line writes (files.c): private report files, the state
 * directory's safety check, and JSON to a file or stdout.
 */
#ifndef MEDIASCAN_FILES_H
#define MEDIASCAN_FILES_H

#include <stddef.h>
#include <stdio.h>

struct json_object;

/*
 * Return 0 with *out open for writing path, created 0600 if new (a report names private
 * files), never through a symlink or a file with other hard links (-ELOOP, -EMLINK), /dev/
 * and /proc/self/fd/ paths excepted; -errno otherwise.
 */
int cli_create_private(const char *path, FILE **out);
/* Return a reason for a cli_create_private error, for "cannot write FILE: reason". */
const char *cli_create_error(int err);
/* Return 0 when dir is missing or is a directory owned by us or root that only its owner can
 * write; -EPERM/-ENOTDIR/-errno with why otherwise (call it before opening the state store). */
int cli_check_state_dir(const char *dir, char *why, size_t len);
/* Rewrite a bare --json in argv (end of line, before an option; with before_device also
 * before a device or a directory) to --json=- (stdout): every subcommand takes --json FILE|-. */
void cli_json_argv(int argc, char **argv, int before_device);
/* Return 0 after writing doc (pretty) to path ("-": stdout; else cli_create_private), -errno. */
int cli_json_write(struct json_object *doc, const char *path);

#endif
