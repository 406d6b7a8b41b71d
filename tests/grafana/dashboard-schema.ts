// The type modrot's Grafana dashboard must have: Grafana's own published
// dashboard schema, the TypeScript types @grafana/schema generates from
// Grafana's CUE kinds (the version package.json pins), made to read as
// JSON. tests/grafana/check-dashboard.sh puts the dashboard before this
// file, as "const dashboard: ModrotDashboard = {...}", and runs tsc.
// Every quirk of @grafana/schema that the check meets is here.
//
// - The classic dashboard (schemaVersion, panels, templating: what a
//   provisioning file loads) is the package's Dashboard type; its "v2"
//   types are for Grafana's Kubernetes-style API, not for this file.
// - Enums: the types use TypeScript enums (MappingType, LegendDisplayMode,
//   VariableRefresh ...), which a JSON string or number is never
//   assignable to; Json<T> puts each enum's values in its place.
// - A panel's options and its fieldConfig.defaults.custom are
//   Record<string, unknown> in the Dashboard type: each panel plugin has
//   its own (the package's raw/composable/PLUGIN/panelcfg types). Grafana
//   lays a panel's saved options over the plugin's defaults, so any may be
//   left out (DeepPartial); none may be unknown or of another type.
// - A panel's targets are Record<string, unknown>: the Prometheus query
//   is in @grafana/prometheus, which depends on the whole of Grafana's
//   front end. PrometheusQuery below is Grafana's DataQuery (this package)
//   with the fields of @grafana/prometheus 13.2.3's Prometheus query
//   (dist/types/dataquery.d.ts) that a dashboard file can hold.
// - A panel type that has no entry in Panels is an error: add its plugin's
//   types there.
import type { Dashboard, DataQuery, FieldConfigSource, Panel, RowPanel } from '@grafana/schema';
import type * as StateTimeline from '@grafana/schema/dist/esm/raw/composable/statetimeline/panelcfg/x/StateTimelinePanelCfg_types.gen';
import type * as TimeSeries from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';

// T as JSON holds it: a string enum as its values ("value" for
// MappingType.ValueToText), a numeric one as its numbers.
type Json<T> = T extends string
	? `${T}`
	: T extends number
		? `${T}` extends `${infer N extends number}`
			? N
			: number
		: T extends boolean | null | undefined
			? T
			: T extends readonly (infer U)[]
				? Json<U>[]
				: T extends object
					? { [K in keyof T]: Json<T[K]> }
					: T;

type DeepPartial<T> = T extends readonly (infer U)[]
	? DeepPartial<U>[]
	: T extends object
		? { [K in keyof T]?: DeepPartial<T[K]> }
		: T;

interface PrometheusQuery extends Json<DataQuery> {
	editorMode?: 'builder' | 'code';
	exemplar?: boolean;
	expr: string;
	format?: 'time_series' | 'table' | 'heatmap';
	instant?: boolean;
	interval?: string;
	intervalFactor?: number;
	legendFormat?: string;
	range?: boolean;
}

// A panel of plugin TYPE, with that plugin's options and custom field
// configuration.
type PanelOf<TYPE extends string, Options, Custom> = Omit<Json<Panel>, 'type' | 'options' | 'fieldConfig' | 'targets'> & {
	type: TYPE;
	options?: DeepPartial<Json<Options>>;
	fieldConfig?: Omit<Json<FieldConfigSource>, 'defaults'> & {
		defaults: Omit<Json<FieldConfigSource['defaults']>, 'custom'> & {
			custom?: DeepPartial<Json<Custom>>;
		};
	};
	targets?: PrometheusQuery[];
};

type Panels =
	| PanelOf<'timeseries', TimeSeries.Options, TimeSeries.FieldConfig>
	| PanelOf<'state-timeline', StateTimeline.Options, StateTimeline.FieldConfig>;

export type ModrotDashboard = Omit<Json<Dashboard>, 'panels'> & {
	panels?: Array<Panels | (Omit<Json<RowPanel>, 'panels'> & { panels: Panels[] })>;
};
