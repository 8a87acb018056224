import { ResponseItemEntity } from './response-item.entity';
import { ResponseEntity } from './response.entity';

export const RESPONSES_ENTITIES = [ResponseEntity, ResponseItemEntity];
