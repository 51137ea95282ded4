import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Installation-wide values generated once (e.g. the token hashing key when none is configured). */
@Entity('settings')
export class Setting {
  @PrimaryColumn({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'text' })
  value: string;
}
