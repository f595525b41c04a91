import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';

import {
  ItemDetailWire,
  ItemFieldWire,
  ItemListWire,
  ItemProgressWire,
  ItemSectionResponse,
  ItemWorkflowWire,
} from '@app/contracts/backlog';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import {
  BlockDto,
  CreateItemDto,
  ForceQueryDto,
  ListItemsQueryDto,
  ResolveDto,
  SetStatusDto,
  UpdateFieldDto,
  UpsertSectionDto,
} from './dto/items.dto';
import { ItemsService } from './items.service';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/items')
export class ItemsController {
  constructor(private readonly service: ItemsService) {}

  @Writes('scope', 'stage_gates')
  @Post()
  create(@CurrentActor() actor: AuthenticatedActor, @Body() dto: CreateItemDto): Promise<ItemDetailWire> {
    return this.service.create(actor, dto);
  }

  @Get()
  list(@CurrentActor() actor: AuthenticatedActor, @Query() query: ListItemsQueryDto): Promise<ItemListWire> {
    return this.service.list(actor, query);
  }

  @Get(':ref')
  get(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string): Promise<ItemDetailWire> {
    return this.service.get(actor, ref);
  }

  @Get(':ref/fields/:field')
  getField(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('field') field: string,
  ): Promise<ItemFieldWire> {
    return this.service.getField(actor, ref, field);
  }

  @Writes('scope', 'claim', 'stage_gates')
  @Put(':ref/fields/:field')
  updateField(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('field') field: string,
    @Body() dto: UpdateFieldDto,
  ): Promise<ItemDetailWire> {
    return this.service.updateField(actor, ref, field, dto.value, dto.force);
  }

  @Writes('scope', 'claim', 'stage_gates')
  @Post(':ref/status')
  @HttpCode(200)
  setStatus(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Body() dto: SetStatusDto,
  ): Promise<ItemDetailWire> {
    return this.service.setStatus(actor, ref, dto.status, dto.force);
  }

  @Writes('scope')
  @Post(':ref/block')
  @HttpCode(200)
  block(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string, @Body() dto: BlockDto) {
    return this.service.block(actor, ref, dto.reason);
  }

  @Writes('scope')
  @Post(':ref/unblock')
  @HttpCode(200)
  unblock(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string): Promise<ItemDetailWire> {
    return this.service.unblock(actor, ref);
  }

  @Writes('scope')
  @Post(':ref/freeze')
  @HttpCode(200)
  freeze(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string): Promise<ItemDetailWire> {
    return this.service.setFrozen(actor, ref, true);
  }

  @Writes('scope')
  @Post(':ref/unfreeze')
  @HttpCode(200)
  unfreeze(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string): Promise<ItemDetailWire> {
    return this.service.setFrozen(actor, ref, false);
  }

  @Writes('scope', 'claim', 'stage_gates')
  @Post(':ref/resolve')
  @HttpCode(200)
  resolve(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Body() dto: ResolveDto,
  ): Promise<ItemDetailWire> {
    return this.service.resolve(actor, ref, dto);
  }

  @Writes('scope', 'claim')
  @Put(':ref/sections/:name')
  upsertSection(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('name') name: string,
    @Body() dto: UpsertSectionDto,
  ): Promise<ItemSectionResponse> {
    return this.service.upsertSection(actor, ref, name, dto);
  }

  @Writes('scope', 'claim')
  @Delete(':ref/sections/:name')
  deleteSection(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('name') name: string,
    @Query() query: ForceQueryDto,
  ) {
    return this.service.deleteSection(actor, ref, name, query.force === 'true');
  }

  @Get(':ref/workflow')
  workflow(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string): Promise<ItemWorkflowWire> {
    return this.service.workflow(actor, ref);
  }

  @Get(':ref/progress')
  progress(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string): Promise<ItemProgressWire> {
    return this.service.progress(actor, ref);
  }
}
