/* The call trace: BF16SHIM_TRACE=FILE gets one JSON object per intercepted call, one line
 * each, written with a single write() to a file opened O_APPEND, so lines from many threads
 * and processes stay whole without a lock.  Never calls CUDA.  Schema: README.md. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bf16shim/bf16shim.h>

#include "config.h"
#include "log.h"
#include "tally.h"
#include "trace.h"

/* Enum names as the vendor headers spell them, without the CUDA_/CUBLAS_ prefixes (the
 * simulator's call log uses the same spelling).  Values from library_types.h and
 * cublas_api.h; a value with no name is written as its number. */
static const char *const type_names[] = {
	[0] = "R_32F", [1] = "R_64F", [2] = "R_16F", [3] = "R_8I", [4] = "C_32F",
	[5] = "C_64F", [6] = "C_16F", [7] = "C_8I", [8] = "R_8U", [9] = "C_8U",
	[10] = "R_32I", [11] = "C_32I", [12] = "R_32U", [13] = "C_32U", [14] = "R_16BF",
	[15] = "C_16BF", [16] = "R_4I", [17] = "C_4I", [18] = "R_4U", [19] = "C_4U",
	[20] = "R_16I", [21] = "C_16I", [22] = "R_16U", [23] = "C_16U", [24] = "R_64I",
	[25] = "C_64I", [26] = "R_64U", [27] = "C_64U", [28] = "R_8F_E4M3",
	[29] = "R_8F_E5M2", [30] = "R_8F_UE8M0", [31] = "R_6F_E2M3", [32] = "R_6F_E3M2",
	[33] = "R_4F_E2M1",
};

#define COMPUTE_BASE 64
static const char *const compute_names[] = {
	[64 - COMPUTE_BASE] = "COMPUTE_16F", [65 - COMPUTE_BASE] = "COMPUTE_16F_PEDANTIC",
	[68 - COMPUTE_BASE] = "COMPUTE_32F", [69 - COMPUTE_BASE] = "COMPUTE_32F_PEDANTIC",
	[70 - COMPUTE_BASE] = "COMPUTE_64F", [71 - COMPUTE_BASE] = "COMPUTE_64F_PEDANTIC",
	[72 - COMPUTE_BASE] = "COMPUTE_32I", [73 - COMPUTE_BASE] = "COMPUTE_32I_PEDANTIC",
	[74 - COMPUTE_BASE] = "COMPUTE_32F_FAST_16F",
	[75 - COMPUTE_BASE] = "COMPUTE_32F_FAST_16BF",
	[77 - COMPUTE_BASE] = "COMPUTE_32F_FAST_TF32",
	[78 - COMPUTE_BASE] = "COMPUTE_32F_EMULATED_16BFX9",
	[79 - COMPUTE_BASE] = "COMPUTE_64F_EMULATED_FIXEDPOINT",
};

static const char *const status_names[] = {
	[0] = "CUBLAS_STATUS_SUCCESS", [1] = "CUBLAS_STATUS_NOT_INITIALIZED",
	[3] = "CUBLAS_STATUS_ALLOC_FAILED", [7] = "CUBLAS_STATUS_INVALID_VALUE",
	[8] = "CUBLAS_STATUS_ARCH_MISMATCH", [11] = "CUBLAS_STATUS_MAPPING_ERROR",
	[13] = "CUBLAS_STATUS_EXECUTION_FAILED", [14] = "CUBLAS_STATUS_INTERNAL_ERROR",
	[15] = "CUBLAS_STATUS_NOT_SUPPORTED", [16] = "CUBLAS_STATUS_LICENSE_ERROR",
};

static const char *const op_names[] = {"N", "T", "C"};
static const char *const pointer_mode_names[] = {"host", "device"};

#define NAME_OF(table, v)                                                                  \
	((v) >= 0 && (size_t)(v) < sizeof(table) / sizeof((table)[0]) ? (table)[v] : NULL)

/* A record being built: the line, and how much of it is used.  Stops growing (and marks
 * itself truncated) at the end of the buffer; a truncated record is dropped, never
 * written half. */
struct line {
	char buf[2048];
	size_t len;
	int truncated;
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->truncated)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof l->buf - l->len)
		l->truncated = 1;
	else
		l->len += (size_t)n;
}

/* A non-negative time in microseconds with three decimals, by integer arithmetic: %f would
 * follow the program's LC_NUMERIC (a comma in some locales) and break the JSON. */
static void put_micros(struct line *l, const char *key, double us)
{
	long long ns = us > 0 && us < 9e15 ? (long long)(us * 1000 + 0.5) : 0;
	put(l, ",\"%s\":%lld.%03lld", key, ns / 1000, ns % 1000);
}

/* A JSON string: quoted and escaped. */
static void put_quoted(struct line *l, const char *s)
{
	put(l, "\"");
	for (; s && *s && !l->truncated; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			put(l, "\\%c", c);
		else if (c < 0x20)
			put(l, "\\u%04x", c);
		else
			put(l, "%c", c);
	}
	put(l, "\"");
}

/* ,"key":"value" */
static void put_string(struct line *l, const char *key, const char *s)
{
	put(l, ",\"%s\":", key);
	put_quoted(l, s);
}

/* ,"key":"NAME" when the value has a name, else ,"key":number. */
static void put_named(struct line *l, const char *key, const char *name, long long v)
{
	if (name)
		put_string(l, key, name);
	else
		put(l, ",\"%s\":%lld", key, v);
}

static const char *algo_name(int algo, char *buf, size_t cap)
{
	/* cublasGemmAlgo_t: -1 DEFAULT, 0..23 ALGOn, 99 DEFAULT_TENSOR_OP, 100..115 ALGOn_TENSOR_OP. */
	if (algo == -1)
		return "DEFAULT";
	if (algo == 99)
		return "DEFAULT_TENSOR_OP";
	if (algo >= 0 && algo <= 23)
		snprintf(buf, cap, "ALGO%d", algo);
	else if (algo >= 100 && algo <= 115)
		snprintf(buf, cap, "ALGO%d_TENSOR_OP", algo - 100);
	else
		return NULL;
	return buf;
}

/* The compute type as the caller spelled it: cublasComputeType_t values start at 64, below
 * that it is the legacy cudaDataType spelling PyTorch uses (doc/facts.md). */
static const char *compute_name(int compute)
{
	if (compute >= COMPUTE_BASE)
		return NAME_OF(compute_names, compute - COMPUTE_BASE);
	return NAME_OF(type_names, compute);
}

static void put_status(struct line *l, const char *key, int status)
{
	char name_key[32];
	const char *name = NAME_OF(status_names, status);

	put(l, ",\"%s\":%d", key, status);
	snprintf(name_key, sizeof name_key, "%s_name", key);
	if (name)
		put_string(l, name_key, name);
}

/* The trace file: its name as given (read once) and, per process, the descriptor.  A
 * forked child that writes gets its own file when the name has %p, and its own sequence. */
static char spec[PATH_MAX];
static int has_spec;

static int trace_fd = -1;
static pid_t fd_pid;             /* the process trace_fd and seq belong to */
static atomic_ullong seq;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static void read_spec(void)
{
	const char *s = secure_getenv(BF16SHIM_ENV_TRACE);
	if (!s || !*s)
		return;
	if (strlen(s) >= sizeof spec) {
		shim_log(LOG_WARN, LOG_BY_USER, "BF16SHIM_TRACE is too long: no trace");
		return;
	}
	strcpy(spec, s);
	has_spec = 1;
}

/* The file name for this process: %p becomes the pid, %% a single %. */
static int expand_name(char *out, size_t cap, pid_t pid, int *per_process)
{
	size_t o = 0;
	*per_process = 0;
	for (const char *s = spec; *s; s++) {
		char num[24];
		const char *piece = num;
		if (s[0] == '%' && s[1] == 'p') {
			snprintf(num, sizeof num, "%d", (int)pid);
			*per_process = 1;
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			piece = "%";
			s++;
		} else {
			num[0] = *s;
			num[1] = 0;
		}
		if (o + strlen(piece) >= cap)
			return 0;
		memcpy(out + o, piece, strlen(piece));
		o += strlen(piece);
	}
	out[o] = 0;
	return 1;
}

/* The descriptor for this process, opened on first use (and again after a fork when the
 * name has %p).  The lock covers opening only, never a write. */
static int fd_for(pid_t pid)
{
	char path[PATH_MAX];
	int per_process, fd;

	if (__atomic_load_n(&fd_pid, __ATOMIC_ACQUIRE) == pid)
		return __atomic_load_n(&trace_fd, __ATOMIC_RELAXED);
	pthread_mutex_lock(&open_lock);
	if (fd_pid != pid) {
		if (!expand_name(path, sizeof path, pid, &per_process)) {
			shim_log_once("trace name", LOG_WARN, LOG_BY_USER,
				      "BF16SHIM_TRACE=%s: name too long: no trace", spec);
			fd = -1;
		} else if (trace_fd >= 0 && !per_process) {
			fd = trace_fd; /* a forked child shares its parent's file */
		} else {
			fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
			if (fd < 0)
				shim_log(LOG_WARN, LOG_BY_USER, "cannot open trace file %s: %m", path);
			else
				shim_log(LOG_DEBUG, LOG_BY_NOBODY, "tracing to %s", path);
		}
		if (trace_fd >= 0 && fd != trace_fd)
			close(trace_fd);
		__atomic_store_n(&trace_fd, fd, __ATOMIC_RELAXED);
		atomic_store(&seq, 0);
		__atomic_store_n(&fd_pid, pid, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&open_lock);
	return trace_fd;
}

/* Records are wanted when the trace's name is set and its first open worked, or by the
 * tally (BF16SHIM_TALLY); decided once, so the question costs a load and a branch on
 * every intercepted call. */
static int enabled;
static pthread_once_t enabled_once = PTHREAD_ONCE_INIT;

static void decide_enabled(void)
{
	shim_config(); /* so a warning about the file goes where BF16SHIM_LOG_FILE says */
	read_spec();
	enabled = (has_spec && fd_for(getpid()) >= 0) || tally_enabled();
}

int trace_enabled(void)
{
	pthread_once(&enabled_once, decide_enabled);
	return enabled;
}

/* The fields that describe the call, from "{" to the status (tally.c groups by them too). */
static void put_call(struct line *l, const struct trace_record *r)
{
	char algo_buf[24];

	put(l, "{\"api\":");
	put_quoted(l, r->api);
	put(l, ",\"m\":%lld,\"n\":%lld,\"k\":%lld,\"batch\":%lld", (long long)r->m,
	    (long long)r->n, (long long)r->k, (long long)r->batch);
	put_named(l, "transa", NAME_OF(op_names, r->transa), r->transa);
	put_named(l, "transb", NAME_OF(op_names, r->transb), r->transb);
	put_named(l, "atype", NAME_OF(type_names, r->atype), r->atype);
	put_named(l, "btype", NAME_OF(type_names, r->btype), r->btype);
	put_named(l, "ctype", NAME_OF(type_names, r->ctype), r->ctype);
	put_named(l, "compute", compute_name(r->compute), r->compute);
	/* cublasLtMatmul's algorithm is an opaque structure, not a cublasGemmAlgo_t. */
	if (r->api && strncmp(r->api, "cublasLt", 8) == 0)
		put(l, ",\"algo\":null");
	else
		put_named(l, "algo", algo_name(r->algo, algo_buf, sizeof algo_buf), r->algo);
	put_named(l, "pointer_mode", NAME_OF(pointer_mode_names, r->pointer_mode),
		  r->pointer_mode);
	put(l, ",\"device\":%d,\"sm\":%d,\"real_sm\":%d", r->device, r->sm, r->real_sm);
	put_string(l, "decision", r->decision);
	put_string(l, "reason", r->reason);
	put_status(l, "status", r->status);
	if (r->first_status != -1)
		put_status(l, "first_status", r->first_status);
	if (r->modeled)
		put_micros(l, "modeled_us", r->modeled_us);
	if (r->modeled && r->rejected) {
		put_string(l, "rejected", r->rejected);
		put_micros(l, "rejected_us", r->rejected_us);
	}
	if (r->splits > 1)
		put(l, ",\"splits\":%u", r->splits);
}

int trace_describe(const struct trace_record *r, char *buf, size_t cap)
{
	struct line l = {.len = 0};

	put_call(&l, r);
	if (l.truncated || l.len >= cap)
		return -1;
	memcpy(buf, l.buf, l.len + 1);
	return (int)l.len;
}

void trace_write(const struct trace_record *r)
{
	struct line l = {.len = 0};
	struct timespec now;
	pid_t pid;
	int fd;

	if (!trace_enabled())
		return;
	tally_add(r);
	if (!has_spec)
		return; /* wanted by the tally only */
	pid = getpid();
	fd = fd_for(pid);
	if (fd < 0)
		return; /* said once when the open failed */
	clock_gettime(CLOCK_REALTIME, &now);

	put_call(&l, r);
	put(&l, ",\"pid\":%d,\"tid\":%ld,\"seq\":%llu,\"t_ns\":%lld}\n", (int)pid,
	    (long)syscall(SYS_gettid), (unsigned long long)atomic_fetch_add(&seq, 1) + 1,
	    (long long)now.tv_sec * 1000000000LL + now.tv_nsec);

	if (l.truncated) {
		shim_log_once("trace truncated", LOG_WARN, LOG_BY_SHIM,
			      "a trace record did not fit in %zu bytes: dropped", sizeof l.buf);
		return;
	}
	/* One write per record: O_APPEND makes it atomic with respect to other writers. */
	if (write(fd, l.buf, l.len) != (ssize_t)l.len)
		shim_log_once("trace write", LOG_WARN, LOG_BY_NOBODY,
			      "writing the trace failed (%m): some records are missing");
}
