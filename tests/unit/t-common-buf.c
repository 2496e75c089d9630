/* Unit tests of common/buf.c. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "tests/tap.h"

static void
test_append_and_terminate(void)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	ok(axg_buf_puts(&b, "hello") == 0, "puts into an empty buffer");
	ok(axg_buf_putc(&b, ' ') == 0, "putc");
	ok(axg_buf_printf(&b, "%s %d", "world", 42) == 0, "printf");
	is_str(b.data, "hello world 42", "contents are the concatenation");
	is_int(b.len, 14, "length excludes the terminator");
	ok(b.data[b.len] == '\0', "always NUL-terminated");
	axg_buf_free(&b);
	ok(b.data == NULL && b.len == 0, "free empties the buffer");
}

static void
test_limit(void)
{
	struct axg_buf b;

	axg_buf_init(&b, 8);
	ok(axg_buf_puts(&b, "12345678") == 0, "append up to the limit");
	ok(axg_buf_putc(&b, '9') == -1, "one byte past the limit fails");
	is_str(b.data, "12345678", "a failed append changes nothing");
	ok(axg_buf_printf(&b, "%d", 1) == -1, "printf past the limit fails");
	is_int(b.len, 8, "length unchanged after failures");
	axg_buf_free(&b);
}

static void
test_growth_and_binary(void)
{
	struct axg_buf b;
	char big[10000];
	bool same = true;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i % 251);
	axg_buf_init(&b, 0);
	for (int i = 0; i < 10; i++)
		axg_buf_append(&b, big, sizeof(big));
	is_int(b.len, 100000, "ten appends of 10000 bytes");
	for (size_t i = 0; i < b.len; i++)
		if (b.data[i] != big[i % sizeof(big)])
			same = false;
	ok(same, "binary contents, NUL bytes included, survive growth");
	axg_buf_free(&b);
}

static void
test_consume_steal_reset(void)
{
	struct axg_buf b;
	char *p;
	size_t n;

	axg_buf_init(&b, 0);
	axg_buf_puts(&b, "abcdef");
	axg_buf_consume(&b, 2);
	is_str(b.data, "cdef", "consume drops the front");
	axg_buf_consume(&b, 100);
	is_int(b.len, 0, "consume past the end empties");
	axg_buf_puts(&b, "xyz");
	p = axg_buf_steal(&b, &n);
	is_str(p, "xyz", "steal hands over the data");
	is_int(n, 3, "steal reports the length");
	ok(b.data == NULL && b.len == 0, "steal leaves the buffer empty");
	free(p);
	p = axg_buf_steal(&b, &n);
	is_str(p, "", "stealing an empty buffer yields an empty string");
	free(p);
	axg_buf_puts(&b, "q");
	axg_buf_reset(&b);
	is_str(b.data, "", "reset keeps a terminated empty string");
	axg_buf_free(&b);
}

static void
test_ext_storage(void)
{
	struct axg_buf b;
	char st[8], *p;
	size_t n;

	axg_buf_init_ext(&b, st, sizeof(st), 0);
	ok(axg_buf_puts(&b, "abcdefg") == 0 && b.data == st,
	    "appends stay in the caller's storage while they fit");
	ok(axg_buf_putc(&b, 'h') == 0 && b.data != st,
	    "the contents move to the heap when they outgrow it");
	is_str(b.data, "abcdefgh", "and are kept");
	memset(st, 'x', sizeof(st));
	is_str(b.data, "abcdefgh", "the heap copy is independent");
	axg_buf_free(&b);
	axg_buf_init_ext(&b, st, sizeof(st), 0);
	axg_buf_puts(&b, "abc");
	p = axg_buf_steal(&b, &n);
	ok(p != st && n == 3 && strcmp(p, "abc") == 0,
	    "stealing from the caller's storage gives a heap copy");
	free(p);
	axg_buf_init_ext(&b, st, sizeof(st), 4);
	ok(axg_buf_puts(&b, "12345") == -1 && b.len == 0,
	    "the limit holds in the caller's storage");
	axg_buf_free(&b);
}

int
main(void)
{
	test_ext_storage();
	test_append_and_terminate();
	test_limit();
	test_growth_and_binary();
	test_consume_steal_reset();
	return tap_done();
}
