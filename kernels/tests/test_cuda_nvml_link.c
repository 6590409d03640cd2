/*
 * test_cuda_nvml_link.c - built only where the CUDA toolkit ships NVML's header and its
 * libnvidia-ml stub: links against every NVML symbol nvml_energy.c looks up with dlsym,
 * so a renamed or missing entry point fails the build.
 */
#include <nvml.h>
#include <stdio.h>

int main(void)
{
    void *syms[] = {
        (void *)nvmlInit_v2, (void *)nvmlShutdown, (void *)nvmlDeviceGetHandleByIndex_v2,
        (void *)nvmlDeviceGetHandleByPciBusId_v2, (void *)nvmlDeviceGetTotalEnergyConsumption,
        (void *)nvmlDeviceGetName, (void *)nvmlSystemGetDriverVersion, (void *)nvmlErrorString,
    };
    printf("%zu NVML symbols linked\n", sizeof syms / sizeof syms[0]);
    return 0;
}
