import { FileEntity } from './files/file.entity';
import { FileBatchEntity } from './vector-store-files/file-batch.entity';
import { VectorStoreFileEntity } from './vector-store-files/vector-store-file.entity';
import { VectorStoreEntity } from './vector-stores/vector-store.entity';

/** Mapped whether or not the file-search module is enabled: its tables exist either way (the migrations own them). */
export const FILE_SEARCH_ENTITIES = [FileEntity, VectorStoreEntity, VectorStoreFileEntity, FileBatchEntity];
