import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ListQueryDto } from '../../common/list.dto';
import { AssignBundleDto, BundleDto, CreateBundleDto, UpdateBundleDto } from './bundles.dto';
import { BundlesService } from './bundles.service';

@ApiTags('Tool bundles')
@Authenticated()
@Admin()
@Controller('v1/tools/bundles')
export class BundlesController {
  constructor(private readonly bundles: BundlesService) {}

  @Post()
  @ApiOperation({ summary: 'Create a bundle (admin)' })
  @ApiCreatedResponse({ type: BundleDto })
  @ApiErrors(400)
  create(@Body() body: CreateBundleDto): Promise<BundleDto> {
    return this.bundles.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'List bundles (admin)' })
  @ApiErrors(400)
  list(@Query() query: ListQueryDto) {
    return this.bundles.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a bundle with its resolved tools and assignments (admin)' })
  @ApiOkResponse({ type: BundleDto })
  @ApiErrors(404)
  get(@Param('id') id: string): Promise<BundleDto> {
    return this.bundles.get(id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a bundle (admin); `tools` replaces the list' })
  @ApiOkResponse({ type: BundleDto })
  @ApiErrors(400, 404)
  update(@Param('id') id: string, @Body() body: UpdateBundleDto): Promise<BundleDto> {
    return this.bundles.update(id, body);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a bundle and its assignments (admin)' })
  @ApiErrors(404)
  remove(@Param('id') id: string) {
    return this.bundles.remove(id);
  }

  @Post(':id/assign')
  @HttpCode(200)
  @ApiOperation({ summary: 'Assign a bundle to a tenant, or to one agent profile of a tenant (admin)' })
  @ApiOkResponse({ type: BundleDto })
  @ApiErrors(400, 404)
  assign(@Param('id') id: string, @Body() body: AssignBundleDto): Promise<BundleDto> {
    return this.bundles.assign(id, body);
  }

  @Post(':id/unassign')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove an assignment (admin)' })
  @ApiOkResponse({ type: BundleDto })
  @ApiErrors(400, 404)
  unassign(@Param('id') id: string, @Body() body: AssignBundleDto): Promise<BundleDto> {
    return this.bundles.unassign(id, body);
  }
}
