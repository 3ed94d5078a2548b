/*
 * The kind of a collective from its name (model/collective.h; DEFINITIONS
 * "Communication", collective kinds): names as PyTorch's record_param_comms and
 * Kineto kernels write "Collective name", host op names (nccl:*, c10d::*, gloo:*),
 * NCCL API/NVTX names, MPI calls, and NCCL/RCCL kernel names, each labelled by hand.
 */
#include <string.h>

#include "model/collective.h"
#include "test.h"

#define TXT(s) gd_coll_kind_from_text(s, strlen(s))
#define HOST(s) gd_coll_kind_from_host(s, strlen(s))
#define KER(s) (int)gd_coll_kind_from_kernel(s, strlen(s))

int main(void)
{
    /* args "Collective name" (PyTorch ProcessGroupNCCL's names) */
    ASSERT_EQ_INT(TXT("allreduce"), GPUDIAG_COMM_ALL_REDUCE);
    ASSERT_EQ_INT(TXT("allreduce_coalesced"), GPUDIAG_COMM_ALL_REDUCE);
    ASSERT_EQ_INT(TXT("_allgather_base"), GPUDIAG_COMM_ALL_GATHER);
    ASSERT_EQ_INT(TXT("allgather_into_tensor_coalesced"), GPUDIAG_COMM_ALL_GATHER);
    ASSERT_EQ_INT(TXT("_reduce_scatter_base"), GPUDIAG_COMM_REDUCE_SCATTER);
    ASSERT_EQ_INT(TXT("reduce_scatter_tensor_coalesced"), GPUDIAG_COMM_REDUCE_SCATTER);
    ASSERT_EQ_INT(TXT("alltoall_base"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(TXT("all_to_all"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(TXT("send"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(TXT("recv"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(TXT("recvAnysource"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(TXT("broadcast"), GPUDIAG_COMM_BROADCAST);
    ASSERT_EQ_INT(TXT("_broadcast_oop"), GPUDIAG_COMM_BROADCAST);
    ASSERT_EQ_INT(TXT("reduce"), GPUDIAG_COMM_OTHER);
    ASSERT_EQ_INT(TXT("barrier"), GPUDIAG_COMM_OTHER);
    ASSERT_EQ_INT(TXT("gather"), GPUDIAG_COMM_OTHER);
    ASSERT_EQ_INT(TXT("wait"), -1);      /* a request wait: no collective of its own */
    ASSERT_EQ_INT(TXT("coalesced"), -1); /* a group: its members name themselves */
    ASSERT_EQ_INT(TXT("init"), -1);
    ASSERT_EQ_INT(TXT(""), -1);
    /* host calls */
    ASSERT_EQ_INT(HOST("nccl:all_reduce"), GPUDIAG_COMM_ALL_REDUCE);
    ASSERT_EQ_INT(HOST("nccl:all_to_all"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(HOST("nccl:_all_gather_base"), GPUDIAG_COMM_ALL_GATHER);
    ASSERT_EQ_INT(HOST("nccl:send 0->1"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(HOST("nccl:recv 1<-0"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(HOST("c10d::allreduce_"), GPUDIAG_COMM_ALL_REDUCE);
    ASSERT_EQ_INT(HOST("c10d::alltoall_base_"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(HOST("c10d::_reduce_scatter_base_"), GPUDIAG_COMM_REDUCE_SCATTER);
    ASSERT_EQ_INT(HOST("c10d::broadcast_"), GPUDIAG_COMM_BROADCAST);
    ASSERT_EQ_INT(HOST("c10d::barrier"), GPUDIAG_COMM_OTHER);
    ASSERT_EQ_INT(HOST("gloo:all_reduce"), GPUDIAG_COMM_ALL_REDUCE);
    ASSERT_EQ_INT(HOST("record_param_comms"), -1); /* its "Collective name" arg says */
    ASSERT_EQ_INT(HOST("aten::scatter_"), -1);     /* tensor ops are not collectives */
    ASSERT_EQ_INT(HOST("aten::gather"), -1);
    ASSERT_EQ_INT(HOST("ncclAllReduce"), GPUDIAG_COMM_ALL_REDUCE);
    ASSERT_EQ_INT(HOST("ncclSend"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(HOST("ncclGroupEnd"), -1);
    ASSERT_EQ_INT(HOST("ncclCommInitRank"), -1);
    ASSERT_EQ_INT(HOST("MPI_Allreduce"), GPUDIAG_COMM_ALL_REDUCE);
    ASSERT_EQ_INT(HOST("MPI_Alltoallv"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(HOST("MPI_Recv"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(HOST("MPI_Isend"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(HOST("MPI_Sendrecv"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(HOST("MPI_Bcast"), GPUDIAG_COMM_BROADCAST);
    ASSERT_EQ_INT(HOST("MPI_Wait"), GPUDIAG_COMM_OTHER);
    ASSERT_EQ_INT(HOST("MPI_Waitall"), GPUDIAG_COMM_OTHER);
    ASSERT_EQ_INT(HOST("MPI_Barrier"), GPUDIAG_COMM_OTHER);
    ASSERT_EQ_INT(HOST("MPI_Init"), -1);
    ASSERT_EQ_INT(HOST("MPI_Comm_rank"), -1);
    ASSERT_TRUE(gd_coll_is_mpi("MPI_Wait", 8));
    ASSERT_TRUE(!gd_coll_is_mpi("nccl:send", 9));
    /* kernel names: only a hint; SendRecv / Generic run anything (NVIDIA/nccl#714) */
    ASSERT_EQ_INT(KER("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), GPUDIAG_COMM_ALL_REDUCE);
    ASSERT_EQ_INT(KER("ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"), GPUDIAG_COMM_ALL_GATHER);
    ASSERT_EQ_INT(KER("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), GPUDIAG_COMM_REDUCE_SCATTER);
    ASSERT_EQ_INT(KER("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"),
                  GPUDIAG_COMM_BROADCAST);
    ASSERT_EQ_INT(KER("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)"), GPUDIAG_COMM_UNKNOWN);
    ASSERT_EQ_INT(KER("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"), GPUDIAG_COMM_UNKNOWN);
    ASSERT_EQ_INT(KER("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"), GPUDIAG_COMM_UNKNOWN);
    ASSERT_EQ_INT(KER("ncclKernel_Reduce_RING_LL_Sum_float"), GPUDIAG_COMM_OTHER);
    /* DeepEP (DEFINITIONS "Collective kinds", rule 3): the MoE token all-to-all and its notify kernels */
    ASSERT_EQ_INT(KER("void dpsk::ep::internode::dispatch<false, 8, false, 8>(int4*, float*, long*)"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(KER("void dpsk::ep::internode::cached_notify<false>(int, int, int)"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(KER("void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*, float*)"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(KER("void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int, int*, int)"), GPUDIAG_COMM_ALL_TO_ALL);
    ASSERT_EQ_INT(KER("void deep_ep::elastic::pp_send_impl<8>(void*, int)"), GPUDIAG_COMM_SEND_RECV);
    ASSERT_EQ_INT(KER("void deep_ep::intranode::barrier<8>(int**, int)"), GPUDIAG_COMM_OTHER);
    ASSERT_TRUE(strcmp(gpudiag_comm_kind_name(GPUDIAG_COMM_UNKNOWN), "unknown") == 0);
    printf("test_collective: %d checks passed\n", gd_test_count);
    return 0;
}
