import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { TENANT_ID_PATTERN, TENANT_ID_RULE } from '../../tenancy/tenant-id';

const TOOL_ID = /^tool_[A-Za-z0-9]+$/;

export class CreateBundleDto {
  @ApiProperty({ example: 'GitHub Suite' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name: string;

  @ApiPropertyOptional({ example: 'Complete GitHub integration: issues, PRs, repos, actions, and code search' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  description?: string;

  @ApiProperty({ type: [String], example: ['tool_8f3a2b1cQx7LmN2pR4sT6vWy'], description: 'Tool ids.' })
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(TOOL_ID, { each: true, message: 'tools must be tool ids (tool_...)' })
  tools: string[];

  @ApiPropertyOptional({ type: [String], example: ['development', 'github'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  tags?: string[];
}

export class UpdateBundleDto {
  @ApiPropertyOptional({ example: 'GitHub Suite' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name?: string;

  @ApiPropertyOptional({ example: 'GitHub issues, PRs and code search' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  description?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['tool_8f3a2b1cQx7LmN2pR4sT6vWy'],
    description: 'Tool ids; replaces the tool list.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(TOOL_ID, { each: true, message: 'tools must be tool ids (tool_...)' })
  tools?: string[];

  @ApiPropertyOptional({ type: [String], example: ['development', 'github'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  tags?: string[];
}

export class AssignBundleDto {
  @ApiProperty({ example: 'tenant_engineering' })
  @Matches(TENANT_ID_PATTERN, { message: `tenant_id must be ${TENANT_ID_RULE}` })
  tenant_id: string;

  @ApiPropertyOptional({ example: 'devops-agent', description: 'Omit to assign to the whole tenant.' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, {
    message: 'agent_profile must be a profile name of letters, digits, "_", ".", ":" or "-"',
  })
  agent_profile?: string;
}

class ResolvedBundleToolDto {
  @ApiProperty()
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty()
  security_status: string;
  @ApiProperty()
  stale: boolean;
}

class BundleAssignmentDto {
  @ApiProperty()
  tenant_id: string;
  @ApiProperty({ nullable: true, type: String })
  agent_profile: string | null;
}

export class BundleDto {
  @ApiProperty({ example: 'bundle_github' })
  id: string;
  @ApiProperty({ example: 'tool_bundle' })
  object: 'tool_bundle';
  @ApiProperty()
  name: string;
  @ApiProperty()
  description: string;
  @ApiProperty({ type: [String], description: 'Tool ids, in order.' })
  tools: string[];
  @ApiProperty({ type: [ResolvedBundleToolDto], description: 'The tools, resolved.' })
  resolved_tools: ResolvedBundleToolDto[];
  @ApiProperty({ type: [String] })
  tags: string[];
  @ApiProperty({ type: [BundleAssignmentDto] })
  assignments: BundleAssignmentDto[];
  @ApiProperty({ example: '2026-02-22T10:00:00.000Z' })
  created_at: string;
  @ApiProperty({ example: '2026-02-22T10:00:00.000Z' })
  updated_at: string;
}
