/* An unrelated library for LD_PRELOAD, to check that `bf16shim run` keeps what is there. */
int bf16shim_test_stub(void);
int bf16shim_test_stub(void)
{
	return 0;
}
