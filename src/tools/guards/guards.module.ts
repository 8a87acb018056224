import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../../observability/observability.module';
import { TenancyModule } from '../../tenancy/tenancy.module';
import { CredentialsModule } from '../catalog/credentials/credentials.module';
import { CallGuard } from '../invocation/call-guard';
import { CallGuardService } from './call-guard.service';
import { GuardMetrics } from './guard.metrics';
import { PoliciesController } from './policies/policies.controller';
import { PoliciesService } from './policies/policies.service';
import { PolicyGuard } from './policies/policy-guard';
import { PolicyRepository } from './policies/policy.repository';
import { PolicySet } from './policies/policy-set';
import { ChainMemory } from './secrets/chain-memory';
import { SecretGuard } from './secrets/secret-guard';
import { StoredSecrets } from './secrets/stored-secrets';

/**
 * Call-time guards: CEL policies (/v1/policies) and secret scanning of arguments and results, offered to the
 * dispatcher as its CallGuard. One layer between validation and execution, so it sees every call path.
 */
@Module({
  imports: [ObservabilityModule, TenancyModule, CredentialsModule],
  controllers: [PoliciesController],
  providers: [
    GuardMetrics,
    PolicyRepository,
    PoliciesService,
    PolicySet,
    PolicyGuard,
    StoredSecrets,
    ChainMemory,
    SecretGuard,
    { provide: CallGuard, useClass: CallGuardService },
  ],
  exports: [CallGuard],
})
export class GuardsModule {}
