/* Device memory is not host memory: a host dereference of a device pointer must crash, as on
 * a real GPU, so that a shim bug that touches device data from the CPU cannot pass the tests
 * (the simulator's device range is PROT_NONE).  Each access runs in a child process, which
 * must die of SIGSEGV. */
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "samples.h"

static void expect_segv(const char *what, volatile unsigned char *p, int write)
{
	pid_t pid;
	int status = 0;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core); /* an expected crash leaves no core file */
		signal(SIGSEGV, SIG_DFL);
		if (write)
			p[0] = 1;
		/* Reaching here means the access worked: exit with the byte we saw. */
		_exit(100 + (p[0] & 0x3f));
	}
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		printf("%s: child killed by signal %d (%s)\n", what, WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
	else
		printf("%s: child exited with %d\n", what, WEXITSTATUS(status));
	EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	       "%s: want death by SIGSEGV, got %s %d", what,
	       WIFSIGNALED(status) ? "signal" : "exit status",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

int main(void)
{
	unsigned char back[64];
	unsigned char *d;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK_RT(cudaMalloc((void **)&d, 4096));
	CHECK_RT(cudaMemset(d, 0x5a, 4096));
	expect_segv("host read of a cudaMalloc pointer", d, 0);
	expect_segv("host read at offset 4000", d + 4000, 0);
	expect_segv("host write of a cudaMalloc pointer", d, 1);
	/* The device data is intact and reachable through the API. */
	CHECK_RT(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < sizeof back; i++)
		if (back[i] != 0x5a) {
			EXPECT_INT("byte written by cudaMemset", back[i], 0x5a);
			break;
		}
	CHECK_RT(cudaFree(d));
	printf("host_deref: %d failed expectations\n", sample_failures);
	return sample_failures ? 1 : 0;
}
