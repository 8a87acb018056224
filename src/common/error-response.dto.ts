import { ApiProperty } from '@nestjs/swagger';

class ErrorDetailDto {
  @ApiProperty({ example: 'name must be shorter than or equal to 64 characters' })
  message: string;

  @ApiProperty({ example: 'invalid_request_error' })
  type: string;

  @ApiProperty({ example: 'name', nullable: true, type: String })
  param: string | null;

  @ApiProperty({ example: 'invalid_value', nullable: true, type: String })
  code: string | null;
}

/** The OpenAI error envelope, as documented in Swagger for every error response. */
export class ErrorResponseDto {
  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;
}
