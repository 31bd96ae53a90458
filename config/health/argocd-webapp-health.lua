-- Argo CD health check for steward.io/WebApp. Install it under resource.customizations in the
-- argocd-cm ConfigMap (key "resource.customizations.health.steward.io_WebApp"); see docs/operations.md#reading-a-webapps-status.
-- It reads the same conditions kstatus reads: Stalled=True fails fast, Reconciling=True or a status
-- behind the spec's generation is still under way, Ready=True is healthy.
local hs = { status = "Progressing", message = "Waiting for Steward to report the WebApp's status" }

local function condition(conditions, type)
  for _, c in ipairs(conditions) do
    if c.type == type then
      return c
    end
  end
  return nil
end

if obj.status == nil or obj.status.observedGeneration == nil then
  return hs
end
if obj.metadata.generation ~= nil and obj.status.observedGeneration < obj.metadata.generation then
  hs.message = "Steward has not yet handled generation " .. obj.metadata.generation
  return hs
end
if obj.status.phase == "Paused" then
  hs.status = "Suspended"
  hs.message = "spec.paused is true"
  return hs
end

local conditions = obj.status.conditions or {}
local stalled = condition(conditions, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = stalled.reason .. ": " .. stalled.message
  return hs
end
local ready = condition(conditions, "Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message
  return hs
end
local reconciling = condition(conditions, "Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = reconciling.reason .. ": " .. reconciling.message
elseif ready ~= nil then
  hs.message = ready.reason .. ": " .. ready.message
end
return hs
