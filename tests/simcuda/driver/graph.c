/* Graphs made by stream capture: instantiate, launch (replays the captured ops, so captured
 * copies, kernels and GEMMs run again), node count, destroy. */
#include "driver_internal.h"

static CUresult instantiate(sim_call *c, CUgraphExec *phExec, CUgraph g, unsigned long long flags)
{
	sim_graph_exec *e = NULL;
	CUresult st;

	sim_call_arg(c, "graph", "0x%llx", DRV_PTR(g));
	sim_call_arg(c, "flags", "%llu", flags);
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (!phExec)
		return CUDA_ERROR_INVALID_VALUE;
	if (!g)
		return CUDA_ERROR_INVALID_HANDLE;
	st = drv_status(sim_graph_instantiate((sim_graph *)g, &e));
	if (st == CUDA_SUCCESS) {
		*phExec = (CUgraphExec)e;
		sim_call_arg(c, "exec", "0x%llx", DRV_PTR(e));
	}
	return st;
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
					     unsigned long long flags)
{
	DRV_ENTER("cuGraphInstantiateWithFlags");
	DRV_RETURN(instantiate(&call_, phGraphExec, hGraph, flags));
}

/* The CUDA 10/11 forms report the failing node and a log; nothing here can fail per node. */
CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph,
				    CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	DRV_ENTER("cuGraphInstantiate");
	if (phErrorNode)
		*phErrorNode = NULL;
	if (logBuffer && bufferSize)
		logBuffer[0] = '\0';
	DRV_RETURN(instantiate(&call_, phGraphExec, hGraph, 0));
}

CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
				       CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	DRV_ENTER("cuGraphInstantiate_v2");
	if (phErrorNode)
		*phErrorNode = NULL;
	if (logBuffer && bufferSize)
		logBuffer[0] = '\0';
	DRV_RETURN(instantiate(&call_, phGraphExec, hGraph, 0));
}

static CUresult launch(sim_call *c, CUgraphExec e, CUstream h, int per_thread)
{
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "exec", "0x%llx", DRV_PTR(e));
	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream_for_work(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	/* Failures of replayed work are those of asynchronous device work. */
	return drv_sticky_status(sim_graph_launch((sim_graph_exec *)e, s));
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
	DRV_ENTER("cuGraphLaunch");
	DRV_RETURN(launch(&call_, hGraphExec, hStream, 0));
}

CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
	DRV_ENTER("cuGraphLaunch_ptsz");
	DRV_RETURN(launch(&call_, hGraphExec, hStream, 1));
}

/* Only the count: the core keeps ops, not addressable nodes. */
CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
	DRV_ENTER("cuGraphGetNodes");
	DRV_ARG("graph", "0x%llx", DRV_PTR(hGraph));
	DRV_CHECK();
	if (!hGraph)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	if (!numNodes)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (nodes)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	*numNodes = sim_graph_node_count((sim_graph *)hGraph);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	DRV_ENTER("cuGraphDestroy");
	DRV_ARG("graph", "0x%llx", DRV_PTR(hGraph));
	DRV_CHECK();
	DRV_RETURN(drv_status(sim_graph_destroy((sim_graph *)hGraph)));
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	DRV_ENTER("cuGraphExecDestroy");
	DRV_ARG("exec", "0x%llx", DRV_PTR(hGraphExec));
	DRV_CHECK();
	DRV_RETURN(drv_status(sim_graph_exec_destroy((sim_graph_exec *)hGraphExec)));
}
