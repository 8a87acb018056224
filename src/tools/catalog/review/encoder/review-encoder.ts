import { createHash } from 'node:crypto';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../../../config/app-config';
import type { EncodedTool } from './encoder-features';
import { EncoderHead, type EncoderReading } from './encoder-head';
import { ENCODER_HEAD } from './encoder-head.data';
import { EncoderThread } from './encoder-thread';

export interface EncoderVerdict {
  /** The head's log-odds that the tool is poisoned. */
  logit: number;
  reading: EncoderReading;
}

/** Verdicts kept per text hash: a definition seen again (re-registered, a change reverted) is not embedded twice. */
const CACHED_VERDICTS = 1000;

/**
 * The pretrained sentence encoder (Universal Sentence Encoder-lite) with the shipped logistic head
 * (encoder-head.data.ts, `npm run train:review-encoder`): reads a definition's texts in a worker thread
 * (encoder-thread.ts) and says how strongly they read as a poisoned tool. `catalog.review.encoder` turns it on;
 * the model is loaded only when the first definition is read.
 */
@Injectable()
export class ReviewEncoder implements OnModuleDestroy {
  readonly configured: boolean;
  private readonly head = EncoderHead.fromData(ENCODER_HEAD);
  private readonly thread = new EncoderThread();
  private readonly verdicts = new Map<string, EncoderVerdict>();

  constructor(config: AppConfig) {
    this.configured = config.catalog.review.encoder;
  }

  /** The verdict on one tool; rejects with the reason when its thread failed on it (crash, memory, time). */
  async read(tool: EncodedTool): Promise<EncoderVerdict> {
    const key = createHash('sha256')
      .update(JSON.stringify([tool.name, tool.texts.map((t) => t.text)]))
      .digest('hex');
    const cached = this.verdicts.get(key);
    if (cached) return cached;
    const logit = this.head.logit(await this.thread.features(tool));
    const verdict = { logit, reading: this.head.reading(logit) };
    if (this.verdicts.size >= CACHED_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value!);
    this.verdicts.set(key, verdict);
    return verdict;
  }

  onModuleDestroy(): void {
    this.thread.close();
  }
}
