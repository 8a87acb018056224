import type { BackendName } from '../search-backends';
import type { AdapterOptions, SearchAdapter } from '../search-adapter';
import { BraveAdapter } from './brave.adapter';
import { SearxngAdapter } from './searxng.adapter';
import { SerperAdapter } from './serper.adapter';
import { TavilyAdapter } from './tavily.adapter';

const ADAPTERS: Record<BackendName, new (options: AdapterOptions) => SearchAdapter> = {
  searxng: SearxngAdapter,
  brave: BraveAdapter,
  tavily: TavilyAdapter,
  serper: SerperAdapter,
};

export function createAdapter(name: BackendName, options: AdapterOptions): SearchAdapter {
  return new ADAPTERS[name](options);
}

export { BraveAdapter, SearxngAdapter, SerperAdapter, TavilyAdapter };
