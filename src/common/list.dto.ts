import type { Type as Class } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

/** Query parameters shared by every list route (OpenAI's cursor pagination). */
export class ListQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, description: 'Number of objects to return.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'Cursor: return objects after this id.', example: 'key_2xK9...' })
  @IsOptional()
  @IsString()
  after?: string;

  @ApiPropertyOptional({ description: 'Cursor: return objects before this id.' })
  @IsOptional()
  @IsString()
  before?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc', description: 'Sort order by creation time.' })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** The Swagger model of a list of `item`s (one per item type, named e.g. `ToolListDto`). */
export function ListOf<T>(item: Class<T>): Class<ListPage<T>> {
  class ListDto implements ListPage<T> {
    @ApiProperty({ example: 'list' })
    object: 'list';

    @ApiProperty({ type: [item] })
    data: T[];

    @ApiProperty({ nullable: true, type: String })
    first_id: string | null;

    @ApiProperty({ nullable: true, type: String })
    last_id: string | null;

    @ApiProperty()
    has_more: boolean;
  }
  Object.defineProperty(ListDto, 'name', { value: `${item.name.replace(/Dto$/, '')}ListDto` });
  return ListDto;
}
