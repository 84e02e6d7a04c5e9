/* Tests of the decode-shaped GEMM kernel, its memory traffic and launch
 * shape: A read exactly once at the widths its alignment allows, at most 1.1 x (A + B + C)
 * in all, and the documented shape's edges. */
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "small_gemm.h"
#include "tests.h"

/* A is read at the widest width its alignment allows: for transa = T 16 bytes a lane in
 * whole 64-element chunks when base, row0 and ld are multiples of 16 bytes, 4 bytes for
 * pairs when of 4 (and in a last partial chunk), 2 bytes otherwise and for an odd k's last
 * element; for transa = N always 2 bytes (lanes on consecutive rows). */
int test_small_gemm_load_widths(void)
{
	static const unsigned ks[] = { 64, 167, 513, 6 };
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 24; q++) {
			struct sg g;
			ptx_launch_stats st;
			char ctx[300];
			struct sg_opts o = {
				.m = q % 2 ? 70 : 33, .n = 3, .k = ks[q / 2 % 4], .batch = 2,
				.ta = q % 6 != 5, .tb = q & 1, .ctype = KERNEL_TYPE_F32,
				.arr_a = q / 8 % 2, .aclass = q % 3, .alpha = 1.0f, .beta = 0.0f,
			};
			sg_make(&g, &o);
			sg_describe(ctx, sizeof ctx, test_sms[si], &g);
			snprintf(ctx + strlen(ctx), sizeof ctx - strlen(ctx), " A-alignment %u",
				 (unsigned[]){ 16, 4, 2 }[o.aclass]);
			CHECK(sg_run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			sg_check_all(&g, ctx, NULL);
			sg_check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
			uint64_t rows = (uint64_t)g.batch * g.m, k = g.k, w16 = 0, w4 = 0, w2 = rows * k;
			if (g.ta && o.aclass < 2) {
				w16 = o.aclass == 0 ? rows * (k / 64) * 8 : 0;
				w4 = rows * ((o.aclass == 0 ? k % 64 : k) / 2);
				w2 = rows * (k % 2);
			}
			struct buf_counts c = mat_counts(&g.a);
			CHECK(c.reads_of_size[16] == w16 && c.reads_of_size[4] == w4 &&
			      c.reads_of_size[2] == w2,
			      "%s: A loads of 16, 4, 2 bytes: %llu, %llu, %llu, want %llu, %llu, %llu", ctx,
			      (unsigned long long)c.reads_of_size[16],
			      (unsigned long long)c.reads_of_size[4],
			      (unsigned long long)c.reads_of_size[2], (unsigned long long)w16,
			      (unsigned long long)w4, (unsigned long long)w2);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

static void restore_c(struct sg *g)
{
	for (int j = 0; j < g->c.nbuf; j++)
		memcpy(g->c.buf[j], g->c.snap[j], g->c.bytes[j]);
}

/* The launch shape: other block sizes give the same result (B then costs one read per
 * block), spare blocks in x and y do nothing, a broken shape traps, and calls with
 * nothing to do touch no memory. */
int test_small_gemm_launch(void)
{
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 4; q++) {
			struct sg g;
			ptx_launch_stats st, st2;
			char ctx[300];
			struct sg_opts o = {
				.m = 300, .n = q % 2 ? 16 : 1, .k = 70, .batch = 2, .ta = q < 2,
				.tb = q & 1, .ctype = q % 3, .arr_c = 1, .dev_scalars = 1, .aclass = 0,
				.alpha = 2.0f, .beta = 0.5f,
			};
			sg_make(&g, &o);
			sg_describe(ctx, sizeof ctx, test_sms[si], &g);
			unsigned block = KERNEL_SMALL_BLOCK(g.n), gx = sg_blocks(g.m, block);
			CHECK(sg_run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			sg_check_all(&g, ctx, NULL);
			unsigned char *first[2];
			for (int j = 0; j < 2; j++) {
				first[j] = buf_alloc(g.c.bytes[j], BUF_NONE);
				memcpy(first[j], g.c.buf[j], g.c.bytes[j]);
			}
			/* Spare blocks: 3 more in x, a second row of them in y. */
			restore_c(&g);
			CHECK(sg_run(mod, &g, block, gx + 3, 2, KERNEL_SMALL_SHMEM(block), &st2) == PTX_OK,
			      "%s: spare blocks", ctx);
			CHECK(!memcmp(first[0], g.c.buf[0], g.c.bytes[0]) &&
			      !memcmp(first[1], g.c.buf[1], g.c.bytes[1]) &&
			      st2.global_bytes_read == st.global_bytes_read &&
			      st2.global_bytes_written == st.global_bytes_written,
			      "%s: spare blocks changed the result or the traffic", ctx);
			/* Other block sizes: the widest and the narrowest. */
			for (unsigned other = 32; other <= 1024; other *= 32) {
				restore_c(&g);
				CHECK(sg_run(mod, &g, other, sg_blocks(g.m, other), 1,
					     KERNEL_SMALL_SHMEM(other), &st2) == PTX_OK, "%s: block %u", ctx,
				      other);
				sg_check_all(&g, ctx, NULL);
				sg_check_traffic(&g, &st2, other, ctx);
			}
			/* Broken shapes trap: a partial warp, too little shared memory, n > 16. */
			CHECK(sg_run(mod, &g, 48, 7, 1, KERNEL_SMALL_SHMEM(64), NULL) == PTX_ETRAP,
			      "%s: block of 48", ctx);
			CHECK(sg_run(mod, &g, block, gx, 1, KERNEL_SMALL_SHMEM(block) - 16, NULL) ==
			      PTX_ETRAP, "%s: short shared memory", ctx);
			g.n = 17;
			CHECK(sg_run(mod, &g, 288, gx, 1, KERNEL_SMALL_SHMEM(288), NULL) == PTX_ETRAP,
			      "%s: n = 17", ctx);
			/* Nothing to do, nothing touched (every buffer refuses access). */
			mat_set_access(&g.a, BUF_NONE);
			mat_set_access(&g.b, BUF_NONE);
			mat_set_access(&g.c, BUF_NONE);
			g.n = 0;
			CHECK(sg_run(mod, &g, 32, gx, 1, KERNEL_SMALL_SHMEM(32), &st2) == PTX_OK &&
			      st2.global_bytes_read + st2.global_bytes_written == 0, "%s: n = 0", ctx);
			g.n = o.n;
			g.ctype = 3;
			CHECK(sg_run(mod, &g, block, gx, 1, KERNEL_SMALL_SHMEM(block), &st2) == PTX_OK &&
			      st2.global_bytes_read + st2.global_bytes_written == 0, "%s: ctype 3", ctx);
			g.ctype = o.ctype;
			g.m = 0;
			CHECK(sg_run(mod, &g, block, 1, 1, KERNEL_SMALL_SHMEM(block), &st2) == PTX_OK &&
			      st2.global_bytes_read + st2.global_bytes_written == 0, "%s: m = 0", ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Decode-sized calls (a 1024 x 1024 weight, 1 to 16 tokens, both layouts, C read): the
 * bytes a call reads against a native GEMM's A + B + C, printed for the record. */
int test_small_gemm_traffic(void)
{
	ptx_module *mod = load_module(75);
	if (!mod)
		return fails;
	for (uint32_t q = 0; q < 10; q++) {
		struct sg g;
		ptx_launch_stats st;
		char ctx[256];
		struct sg_opts o = {
			.m = 1024, .n = (unsigned[]){ 1, 2, 4, 9, 16 }[q / 2], .k = 1024, .batch = 1,
			.ta = q % 2 == 0, .ctype = KERNEL_TYPE_BF16, .aclass = 0, .alpha = 1.0f,
			.beta = 1.0f,
		};
		sg_make(&g, &o);
		sg_describe(ctx, sizeof ctx, 75, &g);
		CHECK(sg_run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
		double ratio = sg_check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
		for (unsigned j = 0; j < g.n; j += 5)
			for (unsigned i = 0; i < g.m; i += 7)
				sg_check_elem(&g, 0, i, j, ctx);
		printf("m=%u n=%2u k=%u transa=%c block=%3u: %llu bytes read = %.4f x (A + B + C), "
		       "%.1f thread-instructions per element of A\n", g.m, g.n, g.k, g.ta ? 'T' : 'N',
		       KERNEL_SMALL_BLOCK(g.n), (unsigned long long)st.global_bytes_read, ratio,
		       (double)st.instructions / ((double)g.m * g.k));
		buf_free_all();
	}
	ptx_module_free(mod);
	return fails;
}
