/* Programs (the helpers) on glibc 2.28: crt1, from glibc 2.34 on, calls __libc_start_main
 * at its new version, GLIBC_2.34, with no init function (the library runs the program's
 * constructors itself); glibc 2.28 has only the old version, and runs just the init function
 * it is given.  Linked with -Wl,--wrap=__libc_start_main (meson.build), crt1's call comes
 * here and goes on to the old version, which every newer glibc keeps, with an init function
 * that runs the program's constructors as glibc 2.28's crt1 did (_init, then .init_array;
 * .preinit_array is the dynamic linker's).  See glibc_floor.h. */
#include <stddef.h>

typedef int main_fn(int, char **, char **);
typedef void init_fn(int, char **, char **);

extern int old_libc_start_main(main_fn *main, int argc, char **argv, init_fn *init,
			       void (*fini)(void), void (*rtld_fini)(void), void *stack_end);
#if defined(__x86_64__)
__asm__(".symver old_libc_start_main,__libc_start_main@GLIBC_2.2.5");
#elif defined(__aarch64__)
__asm__(".symver old_libc_start_main,__libc_start_main@GLIBC_2.17");
#endif

extern void _init(void);
extern init_fn *__init_array_start[] __attribute__((visibility("hidden")));
extern init_fn *__init_array_end[] __attribute__((visibility("hidden")));

int __wrap___libc_start_main(main_fn *main, int argc, char **argv, init_fn *init,
			     void (*fini)(void), void (*rtld_fini)(void), void *stack_end);

static void run_constructors(int argc, char **argv, char **envp)
{
	_init();
	for (init_fn **f = __init_array_start; f < __init_array_end; f++)
		(*f)(argc, argv, envp);
}

int __wrap___libc_start_main(main_fn *main, int argc, char **argv, init_fn *init,
			     void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	return old_libc_start_main(main, argc, argv, init ? init : run_constructors, fini,
				   rtld_fini, stack_end);
}
