// GPU code without kernels: a device table and nothing that launches (a library may keep
// such a module for cuModuleGetGlobal).  Built compressed (meson.build), its module is too
// big to be found empty without decompressing: bf16shim scan counts it as a module with
// and without --deep alike.  The table's values are those of a linear congruential
// generator, so that compression cannot make it small.  With -DTINY: a module small enough
// to be found empty either way.
#define LCG(i) ((unsigned)(i) * 1664525u + 1013904223u)
#define ROW(i) LCG(i), LCG(i + 1), LCG(i + 2), LCG(i + 3), LCG(i + 4), LCG(i + 5), LCG(i + 6), LCG(i + 7)
#define ROWS(i) ROW(i), ROW(i + 8), ROW(i + 16), ROW(i + 24), ROW(i + 32), ROW(i + 40), ROW(i + 48), ROW(i + 56)
#define BLOCK(i) ROWS(i), ROWS(i + 64), ROWS(i + 128), ROWS(i + 192), ROWS(i + 256), ROWS(i + 320), ROWS(i + 384), ROWS(i + 448)

#ifdef TINY
__device__ unsigned table[4] = {LCG(0), LCG(1), LCG(2), LCG(3)};
#else
__device__ unsigned table[4096] = {
	BLOCK(0), BLOCK(512), BLOCK(1024), BLOCK(1536), BLOCK(2048), BLOCK(2560), BLOCK(3072), BLOCK(3584)};
#endif

extern "C" const void *table_address(void)
{
	return (const void *)&table;
}
