import { Module } from '@nestjs/common';
import { WebSearchProvider } from './web-search.service';

/**
 * The built-in `web_search` provider (`builtins.web_search`). Imported only when enabled; the
 * FunctionRegistry finds WebSearchProvider by its @FunctionProvider mark.
 */
@Module({ providers: [WebSearchProvider] })
export class WebSearchModule {}
