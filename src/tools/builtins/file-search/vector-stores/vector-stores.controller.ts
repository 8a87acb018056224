import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../../../auth/auth.decorators';
import { ApiErrors } from '../../../../common/api-errors.decorator';
import { ListQueryDto } from '../../../../common/list.dto';
import { RequestContext } from '../../../../tenancy/request-context';
import { SearchService } from '../search/search.service';
import {
  CreateVectorStoreDto,
  DeletedVectorStoreDto,
  SearchResultsPageDto,
  SearchVectorStoreDto,
  UpdateVectorStoreDto,
  VectorStoreDto,
  VectorStoreListDto,
} from './vector-stores.dto';
import { VectorStoresService } from './vector-stores.service';

@ApiTags('Vector stores')
@Authenticated()
@Controller('v1/vector_stores')
export class VectorStoresController {
  constructor(
    private readonly stores: VectorStoresService,
    private readonly search: SearchService,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a vector store',
    description: 'Files given in file_ids are indexed asynchronously.',
  })
  @ApiOkResponse({ type: VectorStoreDto })
  @ApiErrors(400, 404)
  create(@Body() body: CreateVectorStoreDto): Promise<VectorStoreDto> {
    return this.stores.create(this.context.tenantId, body);
  }

  @Get()
  @ApiOperation({ summary: "List the tenant's vector stores" })
  @ApiOkResponse({ type: VectorStoreListDto })
  @ApiErrors(400)
  list(@Query() query: ListQueryDto) {
    return this.stores.list(this.context.tenantId, query);
  }

  @Get(':vector_store_id')
  @ApiOperation({ summary: 'Get a vector store' })
  @ApiOkResponse({ type: VectorStoreDto })
  @ApiErrors(404)
  get(@Param('vector_store_id') id: string): Promise<VectorStoreDto> {
    return this.stores.get(this.context.tenantId, id);
  }

  @Post(':vector_store_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Modify a vector store (name, expires_after, metadata)' })
  @ApiOkResponse({ type: VectorStoreDto })
  @ApiErrors(400, 404)
  update(@Param('vector_store_id') id: string, @Body() body: UpdateVectorStoreDto): Promise<VectorStoreDto> {
    return this.stores.update(this.context.tenantId, id, body);
  }

  @Delete(':vector_store_id')
  @ApiOperation({ summary: 'Delete a vector store with its chunks (the files themselves stay)' })
  @ApiOkResponse({ type: DeletedVectorStoreDto })
  @ApiErrors(404)
  delete(@Param('vector_store_id') id: string): Promise<DeletedVectorStoreDto> {
    return this.stores.delete(this.context.tenantId, id);
  }

  @Post(':vector_store_id/search')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Search a vector store',
    description:
      'Hybrid (vector + full-text, fused by reciprocal rank) with an embedding service, full-text otherwise. ' +
      'Scores are 0 to 1; filters apply to file attributes. rewrite_query is accepted and the query used as given.',
  })
  @ApiOkResponse({ type: SearchResultsPageDto })
  @ApiErrors(400, 404)
  async searchStore(
    @Param('vector_store_id') id: string,
    @Body() body: SearchVectorStoreDto,
  ): Promise<SearchResultsPageDto> {
    const request = this.search.parseRequest(body);
    const hits = await this.search.search(this.context.tenantId, [id], request);
    return {
      object: 'vector_store.search_results.page',
      search_query: request.query,
      data: hits.map(({ text, ...hit }) => ({ ...hit, content: [{ type: 'text', text }] })),
      has_more: false,
      next_page: null,
    };
  }
}
