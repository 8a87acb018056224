import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { KubernetesSandboxRuntime } from './kubernetes/kubernetes-sandbox-runtime';
import { LocalSandboxRuntime } from './local/local-sandbox-runtime';
import { SandboxExecutor } from './sandbox-executor';
import { SandboxRunner } from './sandbox-runner';
import { DisabledSandboxRuntime, SandboxRuntime } from './sandbox-runtime';

/** The executor of `source.type = sandbox` tools, with the runtime `sandbox.runtime` names. */
@Module({
  providers: [
    {
      provide: SandboxRuntime,
      inject: [AppConfig],
      useFactory: (config: AppConfig): SandboxRuntime => {
        if (config.sandbox.runtime === 'local') return new LocalSandboxRuntime(config);
        if (config.sandbox.runtime === 'kubernetes') return new KubernetesSandboxRuntime(config);
        return new DisabledSandboxRuntime();
      },
    },
    SandboxRunner,
    SandboxExecutor,
  ],
  exports: [SandboxRunner],
})
export class SandboxModule {}
