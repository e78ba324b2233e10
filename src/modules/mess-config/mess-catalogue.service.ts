import { Injectable } from '@nestjs/common';
import { actInMessWithin } from '../../database/database';
import { MessDirectory } from '../messes';
import type { MessConfigDto } from './dto/mess-config.dto';
import { CreateMessDto, MessDto } from './dto/messes.dto';
import { type MessListing, MessConfigRepository } from './mess-config.repository';
import { MessConfigService, messFields } from './mess-config.service';
import { DEFAULT_MESS_CONFIG, toDto, validateSemantics } from './mess-config.values';

/**
 * The deployment's messes as `/messes` shows them (extension 2.2): each mess row with its configuration and its
 * approved members; creating one with its configuration.
 */
@Injectable()
export class MessCatalogue {
  constructor(
    private readonly repository: MessConfigRepository,
    private readonly directory: MessDirectory,
    private readonly messConfig: MessConfigService,
  ) {}

  /**
   * `POST /messes`: a new mess and its configuration, in one transaction. A slug or name already taken (also by a
   * concurrent creation) is 409 from the unique indexes; bad input changes nothing.
   */
  async createMess(adminId: string, body: CreateMessDto): Promise<{ mess: MessDto; config: MessConfigDto }> {
    validateSemantics(body);
    try {
      const messId = await this.repository.transaction(async (tx) => {
        const mess = await this.directory.create(tx, {
          slug: body.slug,
          capacity: body.capacity ?? null,
          upi: body.upi ?? null,
        });
        await actInMessWithin(tx, mess.id);
        await this.messConfig.insertConfig(tx, adminId, body, { slug: mess.slug, capacity: mess.capacity });
        return mess.id;
      });
      const [listing] = await this.repository.listMesses(messId);
      return { mess: toMessDto(listing), config: { ...toDto(listing.config!), ...messFields(listing.mess) } };
    } finally {
      this.messConfig.forget();
    }
  }

  /** Every mess, ordered by name. */
  async listMesses(): Promise<MessDto[]> {
    const rows = await this.repository.listMesses();
    return rows
      .map(toMessDto)
      .sort((a, b) => a.messName.localeCompare(b.messName) || a.slug.localeCompare(b.slug));
  }

  /** One mess by `_id` or slug; undefined when there is none. */
  async findMess(idOrSlug: string): Promise<MessDto | undefined> {
    const mess = await this.directory.find(idOrSlug);
    if (!mess) return undefined;
    const [listing] = await this.repository.listMesses(mess.id);
    return listing && toMessDto(listing);
  }
}

function toMessDto({ mess, config, members }: MessListing): MessDto {
  return {
    _id: mess.id,
    slug: mess.slug,
    messName: config?.messName ?? DEFAULT_MESS_CONFIG.messName,
    description: config?.description ?? '',
    email: config?.email ?? '',
    phone: config ? toDto(config).phone : '',
    capacity: mess.capacity,
    members,
    configured: Boolean(config),
    upi: mess.upi ?? null,
    createdAt: mess.createdAt,
  };
}
