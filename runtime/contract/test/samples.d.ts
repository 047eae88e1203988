// test/samples.ts (templates/project/samples.ts.hbs): valid create data for each model.
export declare const samples: Readonly<Record<string, (n: number) => Record<string, unknown>>>;
