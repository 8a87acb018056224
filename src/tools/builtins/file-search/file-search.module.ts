import { Module } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { ObservabilityModule } from '../../../observability/observability.module';
import { TenancyModule } from '../../../tenancy/tenancy.module';
import { FileSearchSettings, resolveFileSearchSettings } from './file-search.config';
import { FileSearchMetrics } from './file-search.metrics';
import { FileSearchProvider } from './file-search.service';
import { FilePartRepository } from './files/file-part.repository';
import { FilePartsStore } from './files/file-parts.store';
import { FileRepository } from './files/file.repository';
import { ChunkRepository } from './ingestion/chunk.repository';
import { FilesController } from './files/files.controller';
import { FilesService } from './files/files.service';
import { IngestionQueue } from './ingestion/ingestion.queue';
import { IngestionWorker } from './ingestion/ingestion.worker';
import { VectorIndex } from './ingestion/vector-index';
import { SearchService } from './search/search.service';
import { FileBatchesController } from './vector-store-files/file-batches.controller';
import { FileBatchRepository } from './vector-store-files/file-batch.repository';
import { FileBatchesService } from './vector-store-files/file-batches.service';
import { VectorStoreFileRepository } from './vector-store-files/vector-store-file.repository';
import { VectorStoreFilesController } from './vector-store-files/vector-store-files.controller';
import { VectorStoreFilesService } from './vector-store-files/vector-store-files.service';
import { VectorStoreRepository } from './vector-stores/vector-store.repository';
import { VectorStoresController } from './vector-stores/vector-stores.controller';
import { VectorStoresService } from './vector-stores/vector-stores.service';

/**
 * The built-in `file_search` provider (`builtins.file_search`, on by default): OpenAI-compatible Files and
 * Vector Store APIs, the ingestion workers, hybrid or full-text search, and the tool itself.
 */
@Module({
  imports: [ObservabilityModule, TenancyModule],
  controllers: [FilesController, VectorStoresController, VectorStoreFilesController, FileBatchesController],
  providers: [
    {
      provide: FileSearchSettings,
      useFactory: (config: AppConfig) => resolveFileSearchSettings(config),
      inject: [AppConfig],
    },
    {
      provide: FileSearchMetrics,
      useFactory: (config: AppConfig) => new FileSearchMetrics(config.metrics.namespace),
      inject: [AppConfig],
    },
    VectorIndex,
    FileRepository,
    FilePartRepository,
    FilePartsStore,
    VectorStoreRepository,
    VectorStoreFileRepository,
    FileBatchRepository,
    ChunkRepository,
    FilesService,
    IngestionQueue,
    IngestionWorker,
    VectorStoresService,
    VectorStoreFilesService,
    FileBatchesService,
    SearchService,
    FileSearchProvider,
  ],
})
export class FileSearchModule {}
